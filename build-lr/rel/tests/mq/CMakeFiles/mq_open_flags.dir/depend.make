# Empty dependencies file for mq_open_flags.
# This may be replaced when dependencies are built.

# Empty dependencies file for mq_unlink.
# This may be replaced when dependencies are built.

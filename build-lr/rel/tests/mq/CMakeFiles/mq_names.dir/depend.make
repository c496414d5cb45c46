# Empty dependencies file for mq_names.
# This may be replaced when dependencies are built.

# Empty compiler generated dependencies file for mq_timeout.
# This may be replaced when dependencies are built.

# Empty compiler generated dependencies file for mq_limits.
# This may be replaced when dependencies are built.

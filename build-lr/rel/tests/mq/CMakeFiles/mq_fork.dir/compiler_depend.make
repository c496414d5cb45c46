# Empty compiler generated dependencies file for mq_fork.
# This may be replaced when dependencies are built.

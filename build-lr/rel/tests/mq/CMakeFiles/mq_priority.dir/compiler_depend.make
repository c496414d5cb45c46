# Empty compiler generated dependencies file for mq_priority.
# This may be replaced when dependencies are built.

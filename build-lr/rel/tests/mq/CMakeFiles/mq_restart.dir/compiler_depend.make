# Empty compiler generated dependencies file for mq_restart.
# This may be replaced when dependencies are built.

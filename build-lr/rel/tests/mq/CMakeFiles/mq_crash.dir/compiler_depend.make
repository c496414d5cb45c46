# Empty compiler generated dependencies file for mq_crash.
# This may be replaced when dependencies are built.

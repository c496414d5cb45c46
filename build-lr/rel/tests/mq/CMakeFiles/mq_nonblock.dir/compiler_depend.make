# Empty compiler generated dependencies file for mq_nonblock.
# This may be replaced when dependencies are built.

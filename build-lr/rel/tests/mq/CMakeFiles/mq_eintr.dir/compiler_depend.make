# Empty compiler generated dependencies file for mq_eintr.
# This may be replaced when dependencies are built.

# Empty compiler generated dependencies file for mq_msgsize.
# This may be replaced when dependencies are built.

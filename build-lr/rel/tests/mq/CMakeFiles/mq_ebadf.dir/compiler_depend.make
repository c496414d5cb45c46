# Empty compiler generated dependencies file for mq_ebadf.
# This may be replaced when dependencies are built.

# Empty compiler generated dependencies file for mq_empty_kernel.
# This may be replaced when dependencies are built.

# Empty compiler generated dependencies file for mq_full_kernel.
# This may be replaced when dependencies are built.

# Empty dependencies file for mq_lowrate_kernel.
# This may be replaced when dependencies are built.

# Empty dependencies file for mq_pingpong_kernel.
# This may be replaced when dependencies are built.

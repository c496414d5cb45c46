# Empty dependencies file for mq_kernel_oracle.
# This may be replaced when dependencies are built.

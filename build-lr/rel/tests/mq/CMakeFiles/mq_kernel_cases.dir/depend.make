# Empty dependencies file for mq_kernel_cases.
# This may be replaced when dependencies are built.

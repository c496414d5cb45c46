# Empty dependencies file for file_kernel_errors.
# This may be replaced when dependencies are built.

# Empty compiler generated dependencies file for preload_kernel_name.
# This may be replaced when dependencies are built.

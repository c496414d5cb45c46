# Empty dependencies file for te_kernel.
# This may be replaced when dependencies are built.

# Empty dependencies file for smallset_kernel.
# This may be replaced when dependencies are built.

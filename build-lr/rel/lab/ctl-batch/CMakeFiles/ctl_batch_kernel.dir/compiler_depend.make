# Empty compiler generated dependencies file for ctl_batch_kernel.
# This may be replaced when dependencies are built.

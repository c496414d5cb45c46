# Empty dependencies file for ctl_batch_vigil.
# This may be replaced when dependencies are built.

# Empty dependencies file for ctl_batch_libuv.
# This may be replaced when dependencies are built.

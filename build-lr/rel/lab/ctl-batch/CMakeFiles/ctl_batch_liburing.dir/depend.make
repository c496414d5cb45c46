# Empty dependencies file for ctl_batch_liburing.
# This may be replaced when dependencies are built.

# Empty dependencies file for uring_ops.
# This may be replaced when dependencies are built.

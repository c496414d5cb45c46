# Empty dependencies file for preload_nonblock.
# This may be replaced when dependencies are built.

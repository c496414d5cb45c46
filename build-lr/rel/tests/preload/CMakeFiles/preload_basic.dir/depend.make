# Empty dependencies file for preload_basic.
# This may be replaced when dependencies are built.

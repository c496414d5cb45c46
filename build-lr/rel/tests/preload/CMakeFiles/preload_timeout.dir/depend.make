# Empty dependencies file for preload_timeout.
# This may be replaced when dependencies are built.

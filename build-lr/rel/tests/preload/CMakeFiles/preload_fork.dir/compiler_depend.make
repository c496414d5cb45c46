# Empty compiler generated dependencies file for preload_fork.
# This may be replaced when dependencies are built.

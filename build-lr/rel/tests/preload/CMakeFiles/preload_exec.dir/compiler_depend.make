# Empty compiler generated dependencies file for preload_exec.
# This may be replaced when dependencies are built.

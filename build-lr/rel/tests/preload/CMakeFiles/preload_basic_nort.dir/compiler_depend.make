# Empty compiler generated dependencies file for preload_basic_nort.
# This may be replaced when dependencies are built.

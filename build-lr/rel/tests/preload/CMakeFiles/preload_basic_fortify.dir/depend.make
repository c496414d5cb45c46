# Empty dependencies file for preload_basic_fortify.
# This may be replaced when dependencies are built.

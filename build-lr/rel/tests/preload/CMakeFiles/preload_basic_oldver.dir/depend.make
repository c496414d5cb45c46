# Empty dependencies file for preload_basic_oldver.
# This may be replaced when dependencies are built.

# Empty dependencies file for file_alloc_steady.
# This may be replaced when dependencies are built.

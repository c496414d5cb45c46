# Empty compiler generated dependencies file for loop_alloc_steady.
# This may be replaced when dependencies are built.

# Empty compiler generated dependencies file for loop_io_multi.
# This may be replaced when dependencies are built.

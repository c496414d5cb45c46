# Empty compiler generated dependencies file for loop_io_basic.
# This may be replaced when dependencies are built.

# Empty compiler generated dependencies file for loop_io_bad_input.
# This may be replaced when dependencies are built.

# Empty compiler generated dependencies file for loop_io_close_reuse.
# This may be replaced when dependencies are built.

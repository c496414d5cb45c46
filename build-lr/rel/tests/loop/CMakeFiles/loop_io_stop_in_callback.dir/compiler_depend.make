# Empty compiler generated dependencies file for loop_io_stop_in_callback.
# This may be replaced when dependencies are built.

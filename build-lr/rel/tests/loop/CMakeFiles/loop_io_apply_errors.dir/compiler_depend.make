# Empty compiler generated dependencies file for loop_io_apply_errors.
# This may be replaced when dependencies are built.

# Empty compiler generated dependencies file for loop_run_modes.
# This may be replaced when dependencies are built.

# Empty dependencies file for file_run_default.
# This may be replaced when dependencies are built.

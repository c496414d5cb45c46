# Empty dependencies file for file_bad_input.
# This may be replaced when dependencies are built.

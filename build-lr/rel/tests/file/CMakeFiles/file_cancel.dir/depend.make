# Empty dependencies file for file_cancel.
# This may be replaced when dependencies are built.

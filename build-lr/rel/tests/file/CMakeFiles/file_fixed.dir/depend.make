# Empty dependencies file for file_fixed.
# This may be replaced when dependencies are built.

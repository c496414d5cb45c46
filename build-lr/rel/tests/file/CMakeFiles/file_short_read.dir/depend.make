# Empty dependencies file for file_short_read.
# This may be replaced when dependencies are built.

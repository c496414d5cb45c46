# Empty compiler generated dependencies file for file_short_write.
# This may be replaced when dependencies are built.

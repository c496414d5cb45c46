# Empty compiler generated dependencies file for file_read_write.
# This may be replaced when dependencies are built.

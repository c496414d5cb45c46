# Empty dependencies file for example_file_checksum.
# This may be replaced when dependencies are built.

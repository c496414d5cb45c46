# Empty compiler generated dependencies file for file_odirect_misaligned.
# This may be replaced when dependencies are built.

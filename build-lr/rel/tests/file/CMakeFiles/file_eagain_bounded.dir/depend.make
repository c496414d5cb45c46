# Empty dependencies file for file_eagain_bounded.
# This may be replaced when dependencies are built.

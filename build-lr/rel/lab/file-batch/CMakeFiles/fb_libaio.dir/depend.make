# Empty dependencies file for fb_libaio.
# This may be replaced when dependencies are built.

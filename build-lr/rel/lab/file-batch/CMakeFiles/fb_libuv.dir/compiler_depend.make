# Empty compiler generated dependencies file for fb_libuv.
# This may be replaced when dependencies are built.

# Empty dependencies file for smallset_libuv.
# This may be replaced when dependencies are built.

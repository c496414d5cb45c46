# Empty dependencies file for te_libuv.
# This may be replaced when dependencies are built.

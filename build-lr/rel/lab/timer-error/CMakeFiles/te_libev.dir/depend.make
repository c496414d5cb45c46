# Empty dependencies file for te_libev.
# This may be replaced when dependencies are built.

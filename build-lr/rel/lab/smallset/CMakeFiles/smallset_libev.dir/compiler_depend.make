# Empty compiler generated dependencies file for smallset_libev.
# This may be replaced when dependencies are built.

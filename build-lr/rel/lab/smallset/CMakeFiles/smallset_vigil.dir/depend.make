# Empty dependencies file for smallset_vigil.
# This may be replaced when dependencies are built.

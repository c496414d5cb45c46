# Empty dependencies file for te_vigil.
# This may be replaced when dependencies are built.

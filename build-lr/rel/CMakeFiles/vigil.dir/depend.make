# Empty dependencies file for vigil.
# This may be replaced when dependencies are built.

# Empty dependencies file for vigil_static.
# This may be replaced when dependencies are built.

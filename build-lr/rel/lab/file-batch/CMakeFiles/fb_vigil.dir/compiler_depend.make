# Empty compiler generated dependencies file for fb_vigil.
# This may be replaced when dependencies are built.

# Empty compiler generated dependencies file for vigil_objs.
# This may be replaced when dependencies are built.

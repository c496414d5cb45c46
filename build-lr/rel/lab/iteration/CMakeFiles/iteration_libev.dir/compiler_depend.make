# Empty compiler generated dependencies file for iteration_libev.
# This may be replaced when dependencies are built.

# Empty compiler generated dependencies file for iteration_libuv.
# This may be replaced when dependencies are built.

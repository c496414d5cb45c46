# Empty dependencies file for iteration_vigil.
# This may be replaced when dependencies are built.

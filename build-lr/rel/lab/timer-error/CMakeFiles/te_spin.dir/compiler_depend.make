# Empty compiler generated dependencies file for te_spin.
# This may be replaced when dependencies are built.

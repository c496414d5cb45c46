# Empty compiler generated dependencies file for timer_rel_abs.
# This may be replaced when dependencies are built.

# Empty compiler generated dependencies file for timer_precise.
# This may be replaced when dependencies are built.

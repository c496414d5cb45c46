# Empty compiler generated dependencies file for timer_never_early.
# This may be replaced when dependencies are built.

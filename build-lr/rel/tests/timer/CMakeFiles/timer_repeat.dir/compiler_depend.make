# Empty compiler generated dependencies file for timer_repeat.
# This may be replaced when dependencies are built.

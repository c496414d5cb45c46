# Empty compiler generated dependencies file for timer_settime.
# This may be replaced when dependencies are built.

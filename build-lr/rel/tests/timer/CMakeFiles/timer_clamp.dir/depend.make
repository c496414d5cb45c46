# Empty dependencies file for timer_clamp.
# This may be replaced when dependencies are built.

# Empty dependencies file for timer_boottime.
# This may be replaced when dependencies are built.

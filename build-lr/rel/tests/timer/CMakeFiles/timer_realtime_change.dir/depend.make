# Empty dependencies file for timer_realtime_change.
# This may be replaced when dependencies are built.

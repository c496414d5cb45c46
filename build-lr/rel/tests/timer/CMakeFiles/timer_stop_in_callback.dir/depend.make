# Empty dependencies file for timer_stop_in_callback.
# This may be replaced when dependencies are built.

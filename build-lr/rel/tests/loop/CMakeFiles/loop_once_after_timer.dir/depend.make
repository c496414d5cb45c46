# Empty dependencies file for loop_once_after_timer.
# This may be replaced when dependencies are built.

# Empty dependencies file for loop_wakeup.
# This may be replaced when dependencies are built.

# Empty dependencies file for loop_other_thread.
# This may be replaced when dependencies are built.

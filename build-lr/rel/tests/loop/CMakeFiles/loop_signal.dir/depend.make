# Empty dependencies file for loop_signal.
# This may be replaced when dependencies are built.

# Empty dependencies file for timer_bad_input.
# This may be replaced when dependencies are built.

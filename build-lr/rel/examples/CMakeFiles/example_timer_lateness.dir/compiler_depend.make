# Empty compiler generated dependencies file for example_timer_lateness.
# This may be replaced when dependencies are built.

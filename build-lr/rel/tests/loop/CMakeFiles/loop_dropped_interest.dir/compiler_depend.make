# Empty compiler generated dependencies file for loop_dropped_interest.
# This may be replaced when dependencies are built.

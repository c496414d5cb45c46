# Empty compiler generated dependencies file for loop_level_triggered.
# This may be replaced when dependencies are built.

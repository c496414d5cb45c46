# Empty compiler generated dependencies file for loop_many_changes.
# This may be replaced when dependencies are built.

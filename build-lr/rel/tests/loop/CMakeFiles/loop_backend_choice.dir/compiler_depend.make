# Empty compiler generated dependencies file for loop_backend_choice.
# This may be replaced when dependencies are built.

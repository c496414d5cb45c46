# Empty compiler generated dependencies file for example_first_program.
# This may be replaced when dependencies are built.

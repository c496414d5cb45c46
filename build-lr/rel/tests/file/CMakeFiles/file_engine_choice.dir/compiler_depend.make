# Empty compiler generated dependencies file for file_engine_choice.
# This may be replaced when dependencies are built.

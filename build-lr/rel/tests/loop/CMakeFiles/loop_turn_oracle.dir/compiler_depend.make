# Empty compiler generated dependencies file for loop_turn_oracle.
# This may be replaced when dependencies are built.

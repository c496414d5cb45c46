# Empty compiler generated dependencies file for uring_one_enter_per_turn.
# This may be replaced when dependencies are built.

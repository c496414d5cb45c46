# Empty dependencies file for uring_one_enter_per_turn.
# This may be replaced when dependencies are built.

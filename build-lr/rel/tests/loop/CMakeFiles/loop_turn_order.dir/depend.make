# Empty dependencies file for loop_turn_order.
# This may be replaced when dependencies are built.

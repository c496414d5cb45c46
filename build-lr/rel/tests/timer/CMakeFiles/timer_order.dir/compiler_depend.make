# Empty compiler generated dependencies file for timer_order.
# This may be replaced when dependencies are built.

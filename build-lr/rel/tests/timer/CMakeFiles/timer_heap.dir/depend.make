# Empty dependencies file for timer_heap.
# This may be replaced when dependencies are built.

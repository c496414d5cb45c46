# Empty dependencies file for preload_poll.
# This may be replaced when dependencies are built.

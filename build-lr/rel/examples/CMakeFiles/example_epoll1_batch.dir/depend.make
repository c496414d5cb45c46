# Empty dependencies file for example_epoll1_batch.
# This may be replaced when dependencies are built.

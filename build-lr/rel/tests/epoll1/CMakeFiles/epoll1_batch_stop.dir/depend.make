# Empty dependencies file for epoll1_batch_stop.
# This may be replaced when dependencies are built.

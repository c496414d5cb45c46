# Empty dependencies file for epoll1_batch_fork.
# This may be replaced when dependencies are built.

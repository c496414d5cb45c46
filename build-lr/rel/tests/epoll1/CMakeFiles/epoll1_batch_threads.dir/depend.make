# Empty dependencies file for epoll1_batch_threads.
# This may be replaced when dependencies are built.

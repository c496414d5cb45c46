# Empty compiler generated dependencies file for epoll1_batch_errors.
# This may be replaced when dependencies are built.

# Empty compiler generated dependencies file for epoll1_batch_args.
# This may be replaced when dependencies are built.

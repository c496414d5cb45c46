# Empty compiler generated dependencies file for mq_getattr_threads.
# This may be replaced when dependencies are built.

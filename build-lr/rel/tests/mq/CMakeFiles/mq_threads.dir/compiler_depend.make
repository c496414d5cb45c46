# Empty compiler generated dependencies file for mq_threads.
# This may be replaced when dependencies are built.

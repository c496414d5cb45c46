# Empty compiler generated dependencies file for example_mq_watch.
# This may be replaced when dependencies are built.

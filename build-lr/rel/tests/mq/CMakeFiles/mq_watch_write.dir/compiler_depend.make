# Empty compiler generated dependencies file for mq_watch_write.
# This may be replaced when dependencies are built.

# Empty dependencies file for mq_watch_free.
# This may be replaced when dependencies are built.

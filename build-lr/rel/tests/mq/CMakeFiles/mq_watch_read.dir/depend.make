# Empty dependencies file for mq_watch_read.
# This may be replaced when dependencies are built.

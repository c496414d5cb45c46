# Empty dependencies file for mq_notify_none.
# This may be replaced when dependencies are built.

# Empty compiler generated dependencies file for mq_notify_thread.
# This may be replaced when dependencies are built.

# Empty compiler generated dependencies file for mq_notify_waiter.
# This may be replaced when dependencies are built.

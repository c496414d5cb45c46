# Empty compiler generated dependencies file for mq_notify_signal.
# This may be replaced when dependencies are built.

# Empty compiler generated dependencies file for mq_dead_receiver.
# This may be replaced when dependencies are built.

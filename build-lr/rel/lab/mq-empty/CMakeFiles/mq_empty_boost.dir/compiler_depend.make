# Empty compiler generated dependencies file for mq_empty_boost.
# This may be replaced when dependencies are built.

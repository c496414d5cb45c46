# Empty compiler generated dependencies file for mq_full_boost.
# This may be replaced when dependencies are built.

# Empty compiler generated dependencies file for mq_lowrate_boost.
# This may be replaced when dependencies are built.

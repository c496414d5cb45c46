# Empty compiler generated dependencies file for mq_lowrate_vigil.
# This may be replaced when dependencies are built.

# Empty compiler generated dependencies file for mq_full_vigil.
# This may be replaced when dependencies are built.

# Empty dependencies file for mq_empty_vigil.
# This may be replaced when dependencies are built.

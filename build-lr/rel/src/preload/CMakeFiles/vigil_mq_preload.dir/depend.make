# Empty dependencies file for vigil_mq_preload.
# This may be replaced when dependencies are built.

# Empty dependencies file for mq_smoke.
# This may be replaced when dependencies are built.

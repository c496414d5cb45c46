# Empty dependencies file for mq_pingpong_vigil.
# This may be replaced when dependencies are built.

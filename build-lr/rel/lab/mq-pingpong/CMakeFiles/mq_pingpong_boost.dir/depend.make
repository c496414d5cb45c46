# Empty dependencies file for mq_pingpong_boost.
# This may be replaced when dependencies are built.

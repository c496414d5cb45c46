# Empty dependencies file for mq_corrupt.
# This may be replaced when dependencies are built.

# Empty dependencies file for mq_eacces.
# This may be replaced when dependencies are built.

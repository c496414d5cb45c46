# Empty dependencies file for loop_many_fds.
# This may be replaced when dependencies are built.

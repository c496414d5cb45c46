# Empty compiler generated dependencies file for iteration_libevent.
# This may be replaced when dependencies are built.

# Empty compiler generated dependencies file for smallset_libevent.
# This may be replaced when dependencies are built.

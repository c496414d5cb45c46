# Empty dependencies file for te_libevent.
# This may be replaced when dependencies are built.

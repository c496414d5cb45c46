# Empty compiler generated dependencies file for preload_notify.
# This may be replaced when dependencies are built.

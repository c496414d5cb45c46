# Empty compiler generated dependencies file for file_open_stat_close.
# This may be replaced when dependencies are built.

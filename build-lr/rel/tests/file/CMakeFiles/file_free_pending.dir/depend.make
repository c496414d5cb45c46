# Empty dependencies file for file_free_pending.
# This may be replaced when dependencies are built.

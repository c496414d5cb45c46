# Empty compiler generated dependencies file for file_sync_ops.
# This may be replaced when dependencies are built.

# Empty dependencies file for file_free_inflight.
# This may be replaced when dependencies are built.

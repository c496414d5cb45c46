# Empty dependencies file for file_many_inflight.
# This may be replaced when dependencies are built.

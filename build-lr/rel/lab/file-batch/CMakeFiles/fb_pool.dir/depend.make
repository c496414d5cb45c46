# Empty dependencies file for fb_pool.
# This may be replaced when dependencies are built.

# Empty dependencies file for fb_liburing.
# This may be replaced when dependencies are built.

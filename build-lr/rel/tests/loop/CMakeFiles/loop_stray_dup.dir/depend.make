# Empty dependencies file for loop_stray_dup.
# This may be replaced when dependencies are built.

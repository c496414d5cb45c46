# Empty dependencies file for qemu_loop_libev.
# This may be replaced when dependencies are built.

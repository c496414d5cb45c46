# Empty compiler generated dependencies file for qemu_loop_liburing.
# This may be replaced when dependencies are built.

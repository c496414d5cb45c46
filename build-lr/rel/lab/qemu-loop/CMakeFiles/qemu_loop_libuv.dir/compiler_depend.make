# Empty compiler generated dependencies file for qemu_loop_libuv.
# This may be replaced when dependencies are built.

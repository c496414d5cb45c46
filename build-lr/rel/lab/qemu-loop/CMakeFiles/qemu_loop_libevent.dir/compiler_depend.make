# Empty compiler generated dependencies file for qemu_loop_libevent.
# This may be replaced when dependencies are built.

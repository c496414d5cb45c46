# Empty compiler generated dependencies file for qemu_loop_vigil.
# This may be replaced when dependencies are built.

# Empty dependencies file for qemu_loop_kernel.
# This may be replaced when dependencies are built.

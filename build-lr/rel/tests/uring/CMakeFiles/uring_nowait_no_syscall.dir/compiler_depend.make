# Empty compiler generated dependencies file for uring_nowait_no_syscall.
# This may be replaced when dependencies are built.

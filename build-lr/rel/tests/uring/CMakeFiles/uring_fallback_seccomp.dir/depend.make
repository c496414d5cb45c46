# Empty dependencies file for uring_fallback_seccomp.
# This may be replaced when dependencies are built.

# Empty dependencies file for epoll1_pwait1_sigmask.
# This may be replaced when dependencies are built.

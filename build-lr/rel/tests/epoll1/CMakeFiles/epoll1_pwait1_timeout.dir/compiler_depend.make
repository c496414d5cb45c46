# Empty compiler generated dependencies file for epoll1_pwait1_timeout.
# This may be replaced when dependencies are built.

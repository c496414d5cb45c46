# Empty dependencies file for epoll1_pwait1_settime.
# This may be replaced when dependencies are built.

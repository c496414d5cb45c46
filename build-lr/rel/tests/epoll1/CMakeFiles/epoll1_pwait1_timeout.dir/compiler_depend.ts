# CMAKE generated file: DO NOT EDIT!
# Timestamp file for compiler generated dependencies management for epoll1_pwait1_timeout.

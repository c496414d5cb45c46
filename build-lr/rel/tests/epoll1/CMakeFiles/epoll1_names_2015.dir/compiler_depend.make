# Empty compiler generated dependencies file for epoll1_names_2015.
# This may be replaced when dependencies are built.

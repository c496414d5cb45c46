# Empty dependencies file for example_echo_server.
# This may be replaced when dependencies are built.

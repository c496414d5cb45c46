# CMake generated Testfile for 
# Source directory: /work/main/tests
# Build directory: /work/main/build-lr/rel/tests
# 
# This file includes the relevant testing commands required for 
# testing this directory and lists subdirectories to be tested as well.
subdirs("abi")
subdirs("epoll1")
subdirs("examples")
subdirs("file")
subdirs("headers")
subdirs("loop")
subdirs("mq")
subdirs("preload")
subdirs("timer")
subdirs("uring")

# CMake generated Testfile for 
# Source directory: /work/main/lab/mq-pingpong
# Build directory: /work/main/build-lr/rel/lab/mq-pingpong
# 
# This file includes the relevant testing commands required for 
# testing this directory and lists subdirectories to be tested as well.

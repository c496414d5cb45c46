# CMake generated Testfile for 
# Source directory: /work/main/lab/mq-empty
# Build directory: /work/main/build-lr/rel/lab/mq-empty
# 
# This file includes the relevant testing commands required for 
# testing this directory and lists subdirectories to be tested as well.

# CMake generated Testfile for 
# Source directory: /work/main/lab
# Build directory: /work/main/build-lr/rel/lab
# 
# This file includes the relevant testing commands required for 
# testing this directory and lists subdirectories to be tested as well.
subdirs("ctl-batch")
subdirs("file-batch")
subdirs("iteration")
subdirs("mq-empty")
subdirs("mq-full")
subdirs("mq-lowrate")
subdirs("mq-pingpong")
subdirs("qemu-loop")
subdirs("smallset")
subdirs("timer-error")

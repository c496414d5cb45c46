# CMake generated Testfile for 
# Source directory: /work/main/fuzz
# Build directory: /work/main/build-lr/rel/tests/mq/fuzz
# 
# This file includes the relevant testing commands required for 
# testing this directory and lists subdirectories to be tested as well.
add_test(mq_fuzz "/work/main/build-lr/rel/tests/mq/fuzz/mq_fuzz_driver" "/work/main/fuzz/crashes/mq" "/work/main/fuzz/corpus/mq")
set_tests_properties(mq_fuzz PROPERTIES  SKIP_RETURN_CODE "77" TIMEOUT "120" _BACKTRACE_TRIPLES "/work/main/fuzz/CMakeLists.txt;24;add_test;/work/main/fuzz/CMakeLists.txt;0;")

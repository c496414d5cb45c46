# CMake generated Testfile for 
# Source directory: /work/main/tests/preload
# Build directory: /work/main/build-lr/rel/tests/preload
# 
# This file includes the relevant testing commands required for 
# testing this directory and lists subdirectories to be tested as well.
add_test(preload_basic "/work/main/build-lr/rel/tests/preload/preload_basic")
set_tests_properties(preload_basic PROPERTIES  ENVIRONMENT "LD_PRELOAD=/work/main/build-lr/rel/libvigil-mq.so" SKIP_RETURN_CODE "77" TIMEOUT "60" WORKING_DIRECTORY "/work/main/build-lr/rel/tests/preload" _BACKTRACE_TRIPLES "/work/main/tests/preload/CMakeLists.txt;26;add_test;/work/main/tests/preload/CMakeLists.txt;33;preload_test;/work/main/tests/preload/CMakeLists.txt;0;")
add_test(preload_basic_nort "/work/main/build-lr/rel/tests/preload/preload_basic_nort")
set_tests_properties(preload_basic_nort PROPERTIES  ENVIRONMENT "LD_PRELOAD=/work/main/build-lr/rel/libvigil-mq.so" SKIP_RETURN_CODE "77" TIMEOUT "60" WORKING_DIRECTORY "/work/main/build-lr/rel/tests/preload" _BACKTRACE_TRIPLES "/work/main/tests/preload/CMakeLists.txt;26;add_test;/work/main/tests/preload/CMakeLists.txt;34;preload_test;/work/main/tests/preload/CMakeLists.txt;0;")
add_test(preload_basic_fortify "/work/main/build-lr/rel/tests/preload/preload_basic_fortify")
set_tests_properties(preload_basic_fortify PROPERTIES  ENVIRONMENT "LD_PRELOAD=/work/main/build-lr/rel/libvigil-mq.so" SKIP_RETURN_CODE "77" TIMEOUT "60" WORKING_DIRECTORY "/work/main/build-lr/rel/tests/preload" _BACKTRACE_TRIPLES "/work/main/tests/preload/CMakeLists.txt;26;add_test;/work/main/tests/preload/CMakeLists.txt;35;preload_test;/work/main/tests/preload/CMakeLists.txt;0;")
add_test(preload_basic_oldver "/work/main/build-lr/rel/tests/preload/preload_basic_oldver")
set_tests_properties(preload_basic_oldver PROPERTIES  ENVIRONMENT "LD_PRELOAD=/work/main/build-lr/rel/libvigil-mq.so" SKIP_RETURN_CODE "77" TIMEOUT "60" WORKING_DIRECTORY "/work/main/build-lr/rel/tests/preload" _BACKTRACE_TRIPLES "/work/main/tests/preload/CMakeLists.txt;26;add_test;/work/main/tests/preload/CMakeLists.txt;36;preload_test;/work/main/tests/preload/CMakeLists.txt;0;")
add_test(preload_nonblock "/work/main/build-lr/rel/tests/preload/preload_nonblock")
set_tests_properties(preload_nonblock PROPERTIES  ENVIRONMENT "LD_PRELOAD=/work/main/build-lr/rel/libvigil-mq.so" SKIP_RETURN_CODE "77" TIMEOUT "60" WORKING_DIRECTORY "/work/main/build-lr/rel/tests/preload" _BACKTRACE_TRIPLES "/work/main/tests/preload/CMakeLists.txt;26;add_test;/work/main/tests/preload/CMakeLists.txt;37;preload_test;/work/main/tests/preload/CMakeLists.txt;0;")
add_test(preload_timeout "/work/main/build-lr/rel/tests/preload/preload_timeout")
set_tests_properties(preload_timeout PROPERTIES  ENVIRONMENT "LD_PRELOAD=/work/main/build-lr/rel/libvigil-mq.so" SKIP_RETURN_CODE "77" TIMEOUT "60" WORKING_DIRECTORY "/work/main/build-lr/rel/tests/preload" _BACKTRACE_TRIPLES "/work/main/tests/preload/CMakeLists.txt;26;add_test;/work/main/tests/preload/CMakeLists.txt;38;preload_test;/work/main/tests/preload/CMakeLists.txt;0;")
add_test(preload_notify "/work/main/build-lr/rel/tests/preload/preload_notify")
set_tests_properties(preload_notify PROPERTIES  ENVIRONMENT "LD_PRELOAD=/work/main/build-lr/rel/libvigil-mq.so" SKIP_RETURN_CODE "77" TIMEOUT "60" WORKING_DIRECTORY "/work/main/build-lr/rel/tests/preload" _BACKTRACE_TRIPLES "/work/main/tests/preload/CMakeLists.txt;26;add_test;/work/main/tests/preload/CMakeLists.txt;39;preload_test;/work/main/tests/preload/CMakeLists.txt;0;")
add_test(preload_fork "/work/main/build-lr/rel/tests/preload/preload_fork")
set_tests_properties(preload_fork PROPERTIES  ENVIRONMENT "LD_PRELOAD=/work/main/build-lr/rel/libvigil-mq.so" SKIP_RETURN_CODE "77" TIMEOUT "60" WORKING_DIRECTORY "/work/main/build-lr/rel/tests/preload" _BACKTRACE_TRIPLES "/work/main/tests/preload/CMakeLists.txt;26;add_test;/work/main/tests/preload/CMakeLists.txt;40;preload_test;/work/main/tests/preload/CMakeLists.txt;0;")
add_test(preload_poll "/work/main/build-lr/rel/tests/preload/preload_poll")
set_tests_properties(preload_poll PROPERTIES  ENVIRONMENT "LD_PRELOAD=/work/main/build-lr/rel/libvigil-mq.so" SKIP_RETURN_CODE "77" TIMEOUT "60" WORKING_DIRECTORY "/work/main/build-lr/rel/tests/preload" _BACKTRACE_TRIPLES "/work/main/tests/preload/CMakeLists.txt;26;add_test;/work/main/tests/preload/CMakeLists.txt;42;preload_test;/work/main/tests/preload/CMakeLists.txt;0;")
add_test(preload_exec "/work/main/build-lr/rel/tests/preload/preload_exec")
set_tests_properties(preload_exec PROPERTIES  ENVIRONMENT "LD_PRELOAD=/work/main/build-lr/rel/libvigil-mq.so" SKIP_RETURN_CODE "77" TIMEOUT "60" WORKING_DIRECTORY "/work/main/build-lr/rel/tests/preload" _BACKTRACE_TRIPLES "/work/main/tests/preload/CMakeLists.txt;26;add_test;/work/main/tests/preload/CMakeLists.txt;43;preload_test;/work/main/tests/preload/CMakeLists.txt;0;")
add_test(preload_kernel_name "/work/main/build-lr/rel/tests/preload/preload_kernel_name")
set_tests_properties(preload_kernel_name PROPERTIES  ENVIRONMENT "LD_PRELOAD=/work/main/build-lr/rel/libvigil-mq.so" SKIP_RETURN_CODE "77" TIMEOUT "60" WORKING_DIRECTORY "/work/main/build-lr/rel/tests/preload" _BACKTRACE_TRIPLES "/work/main/tests/preload/CMakeLists.txt;26;add_test;/work/main/tests/preload/CMakeLists.txt;44;preload_test;/work/main/tests/preload/CMakeLists.txt;0;")

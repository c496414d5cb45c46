# CMake generated Testfile for 
# Source directory: /work/main/tests/uring
# Build directory: /work/main/build-lr/rel/tests/uring
# 
# This file includes the relevant testing commands required for 
# testing this directory and lists subdirectories to be tested as well.
add_test(uring_nowait_no_syscall.uring "/work/main/build-lr/rel/tests/uring/uring_nowait_no_syscall")
set_tests_properties(uring_nowait_no_syscall.uring PROPERTIES  ENVIRONMENT "VIGIL_BACKEND=uring" LABELS "" SKIP_RETURN_CODE "77" TIMEOUT "120" WORKING_DIRECTORY "/work/main/build-lr/rel/tests/uring" _BACKTRACE_TRIPLES "/work/main/tests/CMakeLists.txt;58;add_test;/work/main/tests/uring/CMakeLists.txt;5;vigil_test;/work/main/tests/uring/CMakeLists.txt;0;")
add_test(uring_ops.uring "/work/main/build-lr/rel/tests/uring/uring_ops")
set_tests_properties(uring_ops.uring PROPERTIES  ENVIRONMENT "VIGIL_BACKEND=uring" LABELS "" SKIP_RETURN_CODE "77" TIMEOUT "120" WORKING_DIRECTORY "/work/main/build-lr/rel/tests/uring" _BACKTRACE_TRIPLES "/work/main/tests/CMakeLists.txt;58;add_test;/work/main/tests/uring/CMakeLists.txt;5;vigil_test;/work/main/tests/uring/CMakeLists.txt;0;")
add_test(uring_one_enter_per_turn.uring "/work/main/build-lr/rel/tests/uring/uring_one_enter_per_turn")
set_tests_properties(uring_one_enter_per_turn.uring PROPERTIES  ENVIRONMENT "VIGIL_BACKEND=uring" LABELS "" SKIP_RETURN_CODE "77" TIMEOUT "120" WORKING_DIRECTORY "/work/main/build-lr/rel/tests/uring" _BACKTRACE_TRIPLES "/work/main/tests/CMakeLists.txt;58;add_test;/work/main/tests/uring/CMakeLists.txt;5;vigil_test;/work/main/tests/uring/CMakeLists.txt;0;")
add_test(uring_fallback_seccomp "/work/main/build-lr/rel/tests/uring/uring_fallback_seccomp")
set_tests_properties(uring_fallback_seccomp PROPERTIES  ENVIRONMENT "" LABELS "" SKIP_RETURN_CODE "77" TIMEOUT "120" WORKING_DIRECTORY "/work/main/build-lr/rel/tests/uring" _BACKTRACE_TRIPLES "/work/main/tests/CMakeLists.txt;47;add_test;/work/main/tests/uring/CMakeLists.txt;8;vigil_test;/work/main/tests/uring/CMakeLists.txt;0;")

# CMake generated Testfile for 
# Source directory: /work/main/tests/abi
# Build directory: /work/main/build-lr/rel/tests/abi
# 
# This file includes the relevant testing commands required for 
# testing this directory and lists subdirectories to be tested as well.
add_test(abi_exports "bash" "/work/main/tests/abi/exports.sh" "/work/main" "/work/main/build-lr/rel/libvigil.so.0.1.0")
set_tests_properties(abi_exports PROPERTIES  ENVIRONMENT "CC=/usr/bin/cc" SKIP_RETURN_CODE "77" TIMEOUT "60" _BACKTRACE_TRIPLES "/work/main/tests/abi/CMakeLists.txt;4;add_test;/work/main/tests/abi/CMakeLists.txt;0;")
add_test(abi_check "bash" "/work/main/scripts/abi.sh" "check" "/work/main/build-lr/rel/abi-plain")
set_tests_properties(abi_check PROPERTIES  RUN_SERIAL "TRUE" SKIP_RETURN_CODE "77" TIMEOUT "900" _BACKTRACE_TRIPLES "/work/main/tests/abi/CMakeLists.txt;9;add_test;/work/main/tests/abi/CMakeLists.txt;0;")

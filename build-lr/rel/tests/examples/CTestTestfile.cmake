# CMake generated Testfile for 
# Source directory: /work/main/tests/examples
# Build directory: /work/main/build-lr/rel/tests/examples
# 
# This file includes the relevant testing commands required for 
# testing this directory and lists subdirectories to be tested as well.
add_test(example_echo_server "bash" "/work/main/tests/examples/echo_server.sh" "/work/main/build-lr/rel/examples/echo_server")
set_tests_properties(example_echo_server PROPERTIES  SKIP_RETURN_CODE "77" TIMEOUT "60" _BACKTRACE_TRIPLES "/work/main/tests/examples/CMakeLists.txt;2;add_test;/work/main/tests/examples/CMakeLists.txt;0;")
add_test(install_pkgconfig_cmake "bash" "/work/main/tests/examples/install.sh" "/work/main/build-lr/rel" "/work/main")
set_tests_properties(install_pkgconfig_cmake PROPERTIES  TIMEOUT "120" _BACKTRACE_TRIPLES "/work/main/tests/examples/CMakeLists.txt;4;add_test;/work/main/tests/examples/CMakeLists.txt;0;")

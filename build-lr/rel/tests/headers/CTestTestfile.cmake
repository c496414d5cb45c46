# CMake generated Testfile for 
# Source directory: /work/main/tests/headers
# Build directory: /work/main/build-lr/rel/tests/headers
# 
# This file includes the relevant testing commands required for 
# testing this directory and lists subdirectories to be tested as well.
add_test(headers_c99 "bash" "/work/main/tests/headers/compile.sh" "c99" "/work/main")
set_tests_properties(headers_c99 PROPERTIES  ENVIRONMENT "CC=/usr/bin/cc;CXX=/usr/bin/c++" SKIP_RETURN_CODE "77" TIMEOUT "120" _BACKTRACE_TRIPLES "/work/main/tests/headers/CMakeLists.txt;6;add_test;/work/main/tests/headers/CMakeLists.txt;0;")
add_test(headers_c11 "bash" "/work/main/tests/headers/compile.sh" "c11" "/work/main")
set_tests_properties(headers_c11 PROPERTIES  ENVIRONMENT "CC=/usr/bin/cc;CXX=/usr/bin/c++" SKIP_RETURN_CODE "77" TIMEOUT "120" _BACKTRACE_TRIPLES "/work/main/tests/headers/CMakeLists.txt;6;add_test;/work/main/tests/headers/CMakeLists.txt;0;")
add_test(headers_gnu11 "bash" "/work/main/tests/headers/compile.sh" "gnu11" "/work/main")
set_tests_properties(headers_gnu11 PROPERTIES  ENVIRONMENT "CC=/usr/bin/cc;CXX=/usr/bin/c++" SKIP_RETURN_CODE "77" TIMEOUT "120" _BACKTRACE_TRIPLES "/work/main/tests/headers/CMakeLists.txt;6;add_test;/work/main/tests/headers/CMakeLists.txt;0;")
add_test(headers_cxx11 "bash" "/work/main/tests/headers/compile.sh" "cxx11" "/work/main")
set_tests_properties(headers_cxx11 PROPERTIES  ENVIRONMENT "CC=/usr/bin/cc;CXX=/usr/bin/c++" SKIP_RETURN_CODE "77" TIMEOUT "120" _BACKTRACE_TRIPLES "/work/main/tests/headers/CMakeLists.txt;6;add_test;/work/main/tests/headers/CMakeLists.txt;0;")
add_test(headers_readme "bash" "/work/main/tests/headers/compile.sh" "readme" "/work/main")
set_tests_properties(headers_readme PROPERTIES  ENVIRONMENT "CC=/usr/bin/cc;CXX=/usr/bin/c++" SKIP_RETURN_CODE "77" TIMEOUT "120" _BACKTRACE_TRIPLES "/work/main/tests/headers/CMakeLists.txt;6;add_test;/work/main/tests/headers/CMakeLists.txt;0;")

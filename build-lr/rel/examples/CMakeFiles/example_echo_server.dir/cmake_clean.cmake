file(REMOVE_RECURSE
  "CMakeFiles/example_echo_server.dir/echo_server.c.o"
  "CMakeFiles/example_echo_server.dir/echo_server.c.o.d"
  "echo_server"
  "echo_server.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/example_echo_server.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

file(REMOVE_RECURSE
  "../iteration_libuv"
  "../iteration_libuv.pdb"
  "CMakeFiles/iteration_libuv.dir/iteration_libuv.c.o"
  "CMakeFiles/iteration_libuv.dir/iteration_libuv.c.o.d"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/iteration_libuv.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

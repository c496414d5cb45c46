file(REMOVE_RECURSE
  "../iteration_libev"
  "../iteration_libev.pdb"
  "CMakeFiles/iteration_libev.dir/iteration_libev.c.o"
  "CMakeFiles/iteration_libev.dir/iteration_libev.c.o.d"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/iteration_libev.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

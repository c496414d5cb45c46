file(REMOVE_RECURSE
  "../iteration_vigil"
  "../iteration_vigil.pdb"
  "CMakeFiles/iteration_vigil.dir/iteration_vigil.c.o"
  "CMakeFiles/iteration_vigil.dir/iteration_vigil.c.o.d"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/iteration_vigil.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

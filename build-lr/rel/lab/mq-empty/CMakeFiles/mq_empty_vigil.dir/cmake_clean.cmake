file(REMOVE_RECURSE
  "../mq_empty_vigil"
  "../mq_empty_vigil.pdb"
  "CMakeFiles/mq_empty_vigil.dir/vigil.c.o"
  "CMakeFiles/mq_empty_vigil.dir/vigil.c.o.d"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/mq_empty_vigil.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

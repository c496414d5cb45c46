file(REMOVE_RECURSE
  "../mq_full_vigil"
  "../mq_full_vigil.pdb"
  "CMakeFiles/mq_full_vigil.dir/vigil.c.o"
  "CMakeFiles/mq_full_vigil.dir/vigil.c.o.d"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/mq_full_vigil.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

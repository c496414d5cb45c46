file(REMOVE_RECURSE
  "../mq_lowrate_vigil"
  "../mq_lowrate_vigil.pdb"
  "CMakeFiles/mq_lowrate_vigil.dir/vigil.c.o"
  "CMakeFiles/mq_lowrate_vigil.dir/vigil.c.o.d"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/mq_lowrate_vigil.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

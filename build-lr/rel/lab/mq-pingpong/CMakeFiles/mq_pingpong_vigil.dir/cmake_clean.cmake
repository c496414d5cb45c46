file(REMOVE_RECURSE
  "../mq_pingpong_vigil"
  "../mq_pingpong_vigil.pdb"
  "CMakeFiles/mq_pingpong_vigil.dir/vigil.c.o"
  "CMakeFiles/mq_pingpong_vigil.dir/vigil.c.o.d"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/mq_pingpong_vigil.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

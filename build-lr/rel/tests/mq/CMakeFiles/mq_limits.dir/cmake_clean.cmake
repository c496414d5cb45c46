file(REMOVE_RECURSE
  "CMakeFiles/mq_limits.dir/limits.c.o"
  "CMakeFiles/mq_limits.dir/limits.c.o.d"
  "mq_limits"
  "mq_limits.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/mq_limits.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

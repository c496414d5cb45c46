file(REMOVE_RECURSE
  "CMakeFiles/mq_restart.dir/restart.c.o"
  "CMakeFiles/mq_restart.dir/restart.c.o.d"
  "mq_restart"
  "mq_restart.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/mq_restart.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

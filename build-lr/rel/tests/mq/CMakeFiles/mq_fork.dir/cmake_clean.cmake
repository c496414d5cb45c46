file(REMOVE_RECURSE
  "CMakeFiles/mq_fork.dir/fork.c.o"
  "CMakeFiles/mq_fork.dir/fork.c.o.d"
  "mq_fork"
  "mq_fork.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/mq_fork.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

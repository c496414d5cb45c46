file(REMOVE_RECURSE
  "CMakeFiles/mq_priority.dir/priority.c.o"
  "CMakeFiles/mq_priority.dir/priority.c.o.d"
  "mq_priority"
  "mq_priority.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/mq_priority.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

file(REMOVE_RECURSE
  "CMakeFiles/mq_dead_receiver.dir/dead_receiver.c.o"
  "CMakeFiles/mq_dead_receiver.dir/dead_receiver.c.o.d"
  "mq_dead_receiver"
  "mq_dead_receiver.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/mq_dead_receiver.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

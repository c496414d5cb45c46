file(REMOVE_RECURSE
  "CMakeFiles/mq_threads.dir/threads.c.o"
  "CMakeFiles/mq_threads.dir/threads.c.o.d"
  "mq_threads"
  "mq_threads.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/mq_threads.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

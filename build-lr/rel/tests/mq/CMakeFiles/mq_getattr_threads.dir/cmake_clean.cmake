file(REMOVE_RECURSE
  "CMakeFiles/mq_getattr_threads.dir/getattr_threads.c.o"
  "CMakeFiles/mq_getattr_threads.dir/getattr_threads.c.o.d"
  "mq_getattr_threads"
  "mq_getattr_threads.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/mq_getattr_threads.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

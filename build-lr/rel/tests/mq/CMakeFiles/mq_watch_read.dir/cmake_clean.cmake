file(REMOVE_RECURSE
  "CMakeFiles/mq_watch_read.dir/watch_read.c.o"
  "CMakeFiles/mq_watch_read.dir/watch_read.c.o.d"
  "mq_watch_read"
  "mq_watch_read.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/mq_watch_read.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

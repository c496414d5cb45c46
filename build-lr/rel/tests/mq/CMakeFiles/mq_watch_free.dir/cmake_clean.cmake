file(REMOVE_RECURSE
  "CMakeFiles/mq_watch_free.dir/watch_free.c.o"
  "CMakeFiles/mq_watch_free.dir/watch_free.c.o.d"
  "mq_watch_free"
  "mq_watch_free.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/mq_watch_free.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

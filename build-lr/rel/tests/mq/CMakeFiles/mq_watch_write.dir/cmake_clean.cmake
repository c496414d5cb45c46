file(REMOVE_RECURSE
  "CMakeFiles/mq_watch_write.dir/watch_write.c.o"
  "CMakeFiles/mq_watch_write.dir/watch_write.c.o.d"
  "mq_watch_write"
  "mq_watch_write.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/mq_watch_write.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

file(REMOVE_RECURSE
  "CMakeFiles/example_mq_watch.dir/mq_watch.c.o"
  "CMakeFiles/example_mq_watch.dir/mq_watch.c.o.d"
  "mq_watch"
  "mq_watch.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/example_mq_watch.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

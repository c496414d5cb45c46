file(REMOVE_RECURSE
  "CMakeFiles/mq_notify_thread.dir/notify_thread.c.o"
  "CMakeFiles/mq_notify_thread.dir/notify_thread.c.o.d"
  "mq_notify_thread"
  "mq_notify_thread.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/mq_notify_thread.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

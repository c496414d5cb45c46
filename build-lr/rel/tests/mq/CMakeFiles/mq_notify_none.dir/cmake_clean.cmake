file(REMOVE_RECURSE
  "CMakeFiles/mq_notify_none.dir/notify_none.c.o"
  "CMakeFiles/mq_notify_none.dir/notify_none.c.o.d"
  "mq_notify_none"
  "mq_notify_none.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/mq_notify_none.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

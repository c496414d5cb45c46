file(REMOVE_RECURSE
  "CMakeFiles/mq_notify_waiter.dir/notify_waiter.c.o"
  "CMakeFiles/mq_notify_waiter.dir/notify_waiter.c.o.d"
  "mq_notify_waiter"
  "mq_notify_waiter.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/mq_notify_waiter.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

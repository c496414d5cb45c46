file(REMOVE_RECURSE
  "CMakeFiles/mq_notify_signal.dir/notify_signal.c.o"
  "CMakeFiles/mq_notify_signal.dir/notify_signal.c.o.d"
  "mq_notify_signal"
  "mq_notify_signal.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/mq_notify_signal.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

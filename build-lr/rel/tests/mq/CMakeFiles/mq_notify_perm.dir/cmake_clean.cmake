file(REMOVE_RECURSE
  "CMakeFiles/mq_notify_perm.dir/notify_perm.c.o"
  "CMakeFiles/mq_notify_perm.dir/notify_perm.c.o.d"
  "mq_notify_perm"
  "mq_notify_perm.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/mq_notify_perm.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

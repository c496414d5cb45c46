file(REMOVE_RECURSE
  "CMakeFiles/mq_crash.dir/crash.c.o"
  "CMakeFiles/mq_crash.dir/crash.c.o.d"
  "mq_crash"
  "mq_crash.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/mq_crash.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

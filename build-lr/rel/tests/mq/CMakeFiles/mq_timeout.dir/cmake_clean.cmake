file(REMOVE_RECURSE
  "CMakeFiles/mq_timeout.dir/timeout.c.o"
  "CMakeFiles/mq_timeout.dir/timeout.c.o.d"
  "mq_timeout"
  "mq_timeout.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/mq_timeout.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

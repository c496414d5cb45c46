file(REMOVE_RECURSE
  "CMakeFiles/mq_eintr.dir/eintr.c.o"
  "CMakeFiles/mq_eintr.dir/eintr.c.o.d"
  "mq_eintr"
  "mq_eintr.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/mq_eintr.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

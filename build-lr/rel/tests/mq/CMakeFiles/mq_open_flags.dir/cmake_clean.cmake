file(REMOVE_RECURSE
  "CMakeFiles/mq_open_flags.dir/open_flags.c.o"
  "CMakeFiles/mq_open_flags.dir/open_flags.c.o.d"
  "mq_open_flags"
  "mq_open_flags.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/mq_open_flags.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

file(REMOVE_RECURSE
  "CMakeFiles/mq_names.dir/names.c.o"
  "CMakeFiles/mq_names.dir/names.c.o.d"
  "mq_names"
  "mq_names.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/mq_names.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

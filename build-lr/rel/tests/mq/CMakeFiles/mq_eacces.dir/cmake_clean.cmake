file(REMOVE_RECURSE
  "CMakeFiles/mq_eacces.dir/eacces.c.o"
  "CMakeFiles/mq_eacces.dir/eacces.c.o.d"
  "mq_eacces"
  "mq_eacces.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/mq_eacces.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

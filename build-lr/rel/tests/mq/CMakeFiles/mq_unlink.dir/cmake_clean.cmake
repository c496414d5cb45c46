file(REMOVE_RECURSE
  "CMakeFiles/mq_unlink.dir/unlink.c.o"
  "CMakeFiles/mq_unlink.dir/unlink.c.o.d"
  "mq_unlink"
  "mq_unlink.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/mq_unlink.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

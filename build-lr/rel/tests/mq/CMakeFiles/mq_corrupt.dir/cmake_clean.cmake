file(REMOVE_RECURSE
  "CMakeFiles/mq_corrupt.dir/corrupt.c.o"
  "CMakeFiles/mq_corrupt.dir/corrupt.c.o.d"
  "mq_corrupt"
  "mq_corrupt.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/mq_corrupt.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

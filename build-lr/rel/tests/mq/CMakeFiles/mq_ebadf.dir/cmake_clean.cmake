file(REMOVE_RECURSE
  "CMakeFiles/mq_ebadf.dir/ebadf.c.o"
  "CMakeFiles/mq_ebadf.dir/ebadf.c.o.d"
  "mq_ebadf"
  "mq_ebadf.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/mq_ebadf.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

file(REMOVE_RECURSE
  "CMakeFiles/mq_msgsize.dir/msgsize.c.o"
  "CMakeFiles/mq_msgsize.dir/msgsize.c.o.d"
  "mq_msgsize"
  "mq_msgsize.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/mq_msgsize.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

file(REMOVE_RECURSE
  "../mq_empty_kernel"
  "../mq_empty_kernel.pdb"
  "CMakeFiles/mq_empty_kernel.dir/kernel.c.o"
  "CMakeFiles/mq_empty_kernel.dir/kernel.c.o.d"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/mq_empty_kernel.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

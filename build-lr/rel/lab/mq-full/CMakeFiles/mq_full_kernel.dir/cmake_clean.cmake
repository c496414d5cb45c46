file(REMOVE_RECURSE
  "../mq_full_kernel"
  "../mq_full_kernel.pdb"
  "CMakeFiles/mq_full_kernel.dir/kernel.c.o"
  "CMakeFiles/mq_full_kernel.dir/kernel.c.o.d"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/mq_full_kernel.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

file(REMOVE_RECURSE
  "../mq_pingpong_kernel"
  "../mq_pingpong_kernel.pdb"
  "CMakeFiles/mq_pingpong_kernel.dir/kernel.c.o"
  "CMakeFiles/mq_pingpong_kernel.dir/kernel.c.o.d"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/mq_pingpong_kernel.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

file(REMOVE_RECURSE
  "../mq_lowrate_kernel"
  "../mq_lowrate_kernel.pdb"
  "CMakeFiles/mq_lowrate_kernel.dir/kernel.c.o"
  "CMakeFiles/mq_lowrate_kernel.dir/kernel.c.o.d"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/mq_lowrate_kernel.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

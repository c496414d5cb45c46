file(REMOVE_RECURSE
  "CMakeFiles/mq_kernel_oracle.dir/kernel_oracle.c.o"
  "CMakeFiles/mq_kernel_oracle.dir/kernel_oracle.c.o.d"
  "mq_kernel_oracle"
  "mq_kernel_oracle.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/mq_kernel_oracle.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

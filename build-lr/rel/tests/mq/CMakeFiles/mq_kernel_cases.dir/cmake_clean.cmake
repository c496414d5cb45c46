file(REMOVE_RECURSE
  "CMakeFiles/mq_kernel_cases.dir/kernel_cases.c.o"
  "CMakeFiles/mq_kernel_cases.dir/kernel_cases.c.o.d"
  "mq_kernel_cases"
  "mq_kernel_cases.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/mq_kernel_cases.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

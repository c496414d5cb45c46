file(REMOVE_RECURSE
  "../ctl_batch_kernel"
  "../ctl_batch_kernel.pdb"
  "CMakeFiles/ctl_batch_kernel.dir/ctl_batch_kernel.c.o"
  "CMakeFiles/ctl_batch_kernel.dir/ctl_batch_kernel.c.o.d"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/ctl_batch_kernel.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

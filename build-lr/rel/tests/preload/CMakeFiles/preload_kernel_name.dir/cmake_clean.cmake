file(REMOVE_RECURSE
  "CMakeFiles/preload_kernel_name.dir/kernel_name.c.o"
  "CMakeFiles/preload_kernel_name.dir/kernel_name.c.o.d"
  "preload_kernel_name"
  "preload_kernel_name.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/preload_kernel_name.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

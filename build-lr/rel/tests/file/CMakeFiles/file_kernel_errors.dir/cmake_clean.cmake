file(REMOVE_RECURSE
  "CMakeFiles/file_kernel_errors.dir/kernel_errors.c.o"
  "CMakeFiles/file_kernel_errors.dir/kernel_errors.c.o.d"
  "file_kernel_errors"
  "file_kernel_errors.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/file_kernel_errors.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

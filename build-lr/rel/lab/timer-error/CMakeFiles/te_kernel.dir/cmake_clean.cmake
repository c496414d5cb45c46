file(REMOVE_RECURSE
  "../te_kernel"
  "../te_kernel.pdb"
  "CMakeFiles/te_kernel.dir/te_kernel.c.o"
  "CMakeFiles/te_kernel.dir/te_kernel.c.o.d"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/te_kernel.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

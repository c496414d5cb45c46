file(REMOVE_RECURSE
  "../smallset_kernel"
  "../smallset_kernel.pdb"
  "CMakeFiles/smallset_kernel.dir/smallset_kernel.c.o"
  "CMakeFiles/smallset_kernel.dir/smallset_kernel.c.o.d"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/smallset_kernel.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

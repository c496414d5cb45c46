file(REMOVE_RECURSE
  "CMakeFiles/file_fixed.dir/fixed.c.o"
  "CMakeFiles/file_fixed.dir/fixed.c.o.d"
  "file_fixed"
  "file_fixed.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/file_fixed.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

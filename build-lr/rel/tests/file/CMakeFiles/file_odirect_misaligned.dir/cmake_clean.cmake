file(REMOVE_RECURSE
  "CMakeFiles/file_odirect_misaligned.dir/odirect_misaligned.c.o"
  "CMakeFiles/file_odirect_misaligned.dir/odirect_misaligned.c.o.d"
  "file_odirect_misaligned"
  "file_odirect_misaligned.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/file_odirect_misaligned.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

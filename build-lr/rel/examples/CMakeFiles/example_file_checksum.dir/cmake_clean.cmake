file(REMOVE_RECURSE
  "CMakeFiles/example_file_checksum.dir/file_checksum.c.o"
  "CMakeFiles/example_file_checksum.dir/file_checksum.c.o.d"
  "file_checksum"
  "file_checksum.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/example_file_checksum.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

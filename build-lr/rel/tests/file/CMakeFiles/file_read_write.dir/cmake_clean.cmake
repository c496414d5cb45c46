file(REMOVE_RECURSE
  "CMakeFiles/file_read_write.dir/read_write.c.o"
  "CMakeFiles/file_read_write.dir/read_write.c.o.d"
  "file_read_write"
  "file_read_write.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/file_read_write.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

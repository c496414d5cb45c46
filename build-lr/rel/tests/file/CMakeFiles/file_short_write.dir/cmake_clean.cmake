file(REMOVE_RECURSE
  "CMakeFiles/file_short_write.dir/short_write.c.o"
  "CMakeFiles/file_short_write.dir/short_write.c.o.d"
  "file_short_write"
  "file_short_write.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/file_short_write.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

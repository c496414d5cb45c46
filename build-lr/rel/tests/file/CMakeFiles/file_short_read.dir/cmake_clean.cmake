file(REMOVE_RECURSE
  "CMakeFiles/file_short_read.dir/short_read.c.o"
  "CMakeFiles/file_short_read.dir/short_read.c.o.d"
  "file_short_read"
  "file_short_read.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/file_short_read.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

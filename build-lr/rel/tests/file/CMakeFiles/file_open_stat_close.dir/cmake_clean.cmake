file(REMOVE_RECURSE
  "CMakeFiles/file_open_stat_close.dir/open_stat_close.c.o"
  "CMakeFiles/file_open_stat_close.dir/open_stat_close.c.o.d"
  "file_open_stat_close"
  "file_open_stat_close.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/file_open_stat_close.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

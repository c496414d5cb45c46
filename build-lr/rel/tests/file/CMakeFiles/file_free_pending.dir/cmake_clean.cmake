file(REMOVE_RECURSE
  "CMakeFiles/file_free_pending.dir/free_pending.c.o"
  "CMakeFiles/file_free_pending.dir/free_pending.c.o.d"
  "file_free_pending"
  "file_free_pending.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/file_free_pending.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

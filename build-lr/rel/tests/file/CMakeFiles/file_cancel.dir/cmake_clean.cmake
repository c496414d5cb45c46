file(REMOVE_RECURSE
  "CMakeFiles/file_cancel.dir/cancel.c.o"
  "CMakeFiles/file_cancel.dir/cancel.c.o.d"
  "file_cancel"
  "file_cancel.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/file_cancel.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

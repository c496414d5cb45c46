file(REMOVE_RECURSE
  "CMakeFiles/file_bad_input.dir/bad_input.c.o"
  "CMakeFiles/file_bad_input.dir/bad_input.c.o.d"
  "file_bad_input"
  "file_bad_input.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/file_bad_input.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

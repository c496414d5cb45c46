file(REMOVE_RECURSE
  "CMakeFiles/file_run_default.dir/run_default.c.o"
  "CMakeFiles/file_run_default.dir/run_default.c.o.d"
  "file_run_default"
  "file_run_default.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/file_run_default.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

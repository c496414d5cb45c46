file(REMOVE_RECURSE
  "CMakeFiles/file_engine_choice.dir/engine_choice.c.o"
  "CMakeFiles/file_engine_choice.dir/engine_choice.c.o.d"
  "file_engine_choice"
  "file_engine_choice.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/file_engine_choice.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

file(REMOVE_RECURSE
  "CMakeFiles/loop_io_bad_input.dir/io_bad_input.c.o"
  "CMakeFiles/loop_io_bad_input.dir/io_bad_input.c.o.d"
  "loop_io_bad_input"
  "loop_io_bad_input.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/loop_io_bad_input.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

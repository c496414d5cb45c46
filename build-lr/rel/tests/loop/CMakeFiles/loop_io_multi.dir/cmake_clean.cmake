file(REMOVE_RECURSE
  "CMakeFiles/loop_io_multi.dir/io_multi.c.o"
  "CMakeFiles/loop_io_multi.dir/io_multi.c.o.d"
  "loop_io_multi"
  "loop_io_multi.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/loop_io_multi.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

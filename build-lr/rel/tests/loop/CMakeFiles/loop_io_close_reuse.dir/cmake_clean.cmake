file(REMOVE_RECURSE
  "CMakeFiles/loop_io_close_reuse.dir/io_close_reuse.c.o"
  "CMakeFiles/loop_io_close_reuse.dir/io_close_reuse.c.o.d"
  "loop_io_close_reuse"
  "loop_io_close_reuse.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/loop_io_close_reuse.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

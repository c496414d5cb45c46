file(REMOVE_RECURSE
  "CMakeFiles/loop_io_basic.dir/io_basic.c.o"
  "CMakeFiles/loop_io_basic.dir/io_basic.c.o.d"
  "loop_io_basic"
  "loop_io_basic.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/loop_io_basic.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

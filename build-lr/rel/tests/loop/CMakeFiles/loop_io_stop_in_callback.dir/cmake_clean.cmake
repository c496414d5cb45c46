file(REMOVE_RECURSE
  "CMakeFiles/loop_io_stop_in_callback.dir/io_stop_in_callback.c.o"
  "CMakeFiles/loop_io_stop_in_callback.dir/io_stop_in_callback.c.o.d"
  "loop_io_stop_in_callback"
  "loop_io_stop_in_callback.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/loop_io_stop_in_callback.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

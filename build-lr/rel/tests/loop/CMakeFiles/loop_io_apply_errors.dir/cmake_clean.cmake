file(REMOVE_RECURSE
  "CMakeFiles/loop_io_apply_errors.dir/io_apply_errors.c.o"
  "CMakeFiles/loop_io_apply_errors.dir/io_apply_errors.c.o.d"
  "loop_io_apply_errors"
  "loop_io_apply_errors.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/loop_io_apply_errors.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

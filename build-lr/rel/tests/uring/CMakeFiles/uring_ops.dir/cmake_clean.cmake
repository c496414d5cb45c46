file(REMOVE_RECURSE
  "CMakeFiles/uring_ops.dir/ops.c.o"
  "CMakeFiles/uring_ops.dir/ops.c.o.d"
  "uring_ops"
  "uring_ops.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/uring_ops.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

file(REMOVE_RECURSE
  "CMakeFiles/preload_fork.dir/fork.c.o"
  "CMakeFiles/preload_fork.dir/fork.c.o.d"
  "preload_fork"
  "preload_fork.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/preload_fork.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

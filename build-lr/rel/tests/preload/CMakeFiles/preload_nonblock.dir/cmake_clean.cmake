file(REMOVE_RECURSE
  "CMakeFiles/preload_nonblock.dir/nonblock.c.o"
  "CMakeFiles/preload_nonblock.dir/nonblock.c.o.d"
  "preload_nonblock"
  "preload_nonblock.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/preload_nonblock.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

file(REMOVE_RECURSE
  "CMakeFiles/preload_basic.dir/basic.c.o"
  "CMakeFiles/preload_basic.dir/basic.c.o.d"
  "preload_basic"
  "preload_basic.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/preload_basic.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

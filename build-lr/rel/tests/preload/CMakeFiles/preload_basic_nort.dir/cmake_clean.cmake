file(REMOVE_RECURSE
  "CMakeFiles/preload_basic_nort.dir/basic.c.o"
  "CMakeFiles/preload_basic_nort.dir/basic.c.o.d"
  "preload_basic_nort"
  "preload_basic_nort.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/preload_basic_nort.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

file(REMOVE_RECURSE
  "CMakeFiles/preload_basic_fortify.dir/basic.c.o"
  "CMakeFiles/preload_basic_fortify.dir/basic.c.o.d"
  "preload_basic_fortify"
  "preload_basic_fortify.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/preload_basic_fortify.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

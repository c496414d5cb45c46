file(REMOVE_RECURSE
  "CMakeFiles/preload_basic_oldver.dir/basic.c.o"
  "CMakeFiles/preload_basic_oldver.dir/basic.c.o.d"
  "preload_basic_oldver"
  "preload_basic_oldver.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/preload_basic_oldver.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

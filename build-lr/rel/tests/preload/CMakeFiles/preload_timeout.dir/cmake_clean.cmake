file(REMOVE_RECURSE
  "CMakeFiles/preload_timeout.dir/timeout.c.o"
  "CMakeFiles/preload_timeout.dir/timeout.c.o.d"
  "preload_timeout"
  "preload_timeout.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/preload_timeout.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

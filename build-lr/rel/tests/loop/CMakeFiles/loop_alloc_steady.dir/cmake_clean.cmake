file(REMOVE_RECURSE
  "CMakeFiles/loop_alloc_steady.dir/alloc_steady.c.o"
  "CMakeFiles/loop_alloc_steady.dir/alloc_steady.c.o.d"
  "loop_alloc_steady"
  "loop_alloc_steady.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/loop_alloc_steady.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

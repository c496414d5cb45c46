file(REMOVE_RECURSE
  "CMakeFiles/file_alloc_steady.dir/alloc_steady.c.o"
  "CMakeFiles/file_alloc_steady.dir/alloc_steady.c.o.d"
  "file_alloc_steady"
  "file_alloc_steady.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/file_alloc_steady.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

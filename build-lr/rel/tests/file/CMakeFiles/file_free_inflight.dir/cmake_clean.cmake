file(REMOVE_RECURSE
  "CMakeFiles/file_free_inflight.dir/free_inflight.c.o"
  "CMakeFiles/file_free_inflight.dir/free_inflight.c.o.d"
  "file_free_inflight"
  "file_free_inflight.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/file_free_inflight.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

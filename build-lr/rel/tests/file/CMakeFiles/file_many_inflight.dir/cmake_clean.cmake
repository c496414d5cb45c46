file(REMOVE_RECURSE
  "CMakeFiles/file_many_inflight.dir/many_inflight.c.o"
  "CMakeFiles/file_many_inflight.dir/many_inflight.c.o.d"
  "file_many_inflight"
  "file_many_inflight.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/file_many_inflight.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

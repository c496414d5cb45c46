file(REMOVE_RECURSE
  "CMakeFiles/file_sync_ops.dir/sync_ops.c.o"
  "CMakeFiles/file_sync_ops.dir/sync_ops.c.o.d"
  "file_sync_ops"
  "file_sync_ops.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/file_sync_ops.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

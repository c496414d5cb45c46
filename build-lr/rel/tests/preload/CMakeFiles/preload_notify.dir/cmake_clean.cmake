file(REMOVE_RECURSE
  "CMakeFiles/preload_notify.dir/notify.c.o"
  "CMakeFiles/preload_notify.dir/notify.c.o.d"
  "preload_notify"
  "preload_notify.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/preload_notify.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

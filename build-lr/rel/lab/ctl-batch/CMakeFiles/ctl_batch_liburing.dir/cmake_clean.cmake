file(REMOVE_RECURSE
  "../ctl_batch_liburing"
  "../ctl_batch_liburing.pdb"
  "CMakeFiles/ctl_batch_liburing.dir/ctl_batch_liburing.c.o"
  "CMakeFiles/ctl_batch_liburing.dir/ctl_batch_liburing.c.o.d"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/ctl_batch_liburing.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

file(REMOVE_RECURSE
  "../ctl_batch_libuv"
  "../ctl_batch_libuv.pdb"
  "CMakeFiles/ctl_batch_libuv.dir/ctl_batch_libuv.c.o"
  "CMakeFiles/ctl_batch_libuv.dir/ctl_batch_libuv.c.o.d"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/ctl_batch_libuv.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

file(REMOVE_RECURSE
  "../ctl_batch_vigil"
  "../ctl_batch_vigil.pdb"
  "CMakeFiles/ctl_batch_vigil.dir/ctl_batch_vigil.c.o"
  "CMakeFiles/ctl_batch_vigil.dir/ctl_batch_vigil.c.o.d"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/ctl_batch_vigil.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

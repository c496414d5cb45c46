file(REMOVE_RECURSE
  "CMakeFiles/preload_exec.dir/exec.c.o"
  "CMakeFiles/preload_exec.dir/exec.c.o.d"
  "preload_exec"
  "preload_exec.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/preload_exec.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

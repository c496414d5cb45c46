file(REMOVE_RECURSE
  "CMakeFiles/loop_run_modes.dir/run_modes.c.o"
  "CMakeFiles/loop_run_modes.dir/run_modes.c.o.d"
  "loop_run_modes"
  "loop_run_modes.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/loop_run_modes.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

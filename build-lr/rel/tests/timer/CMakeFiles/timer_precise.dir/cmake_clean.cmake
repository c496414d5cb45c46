file(REMOVE_RECURSE
  "CMakeFiles/timer_precise.dir/precise.c.o"
  "CMakeFiles/timer_precise.dir/precise.c.o.d"
  "timer_precise"
  "timer_precise.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/timer_precise.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

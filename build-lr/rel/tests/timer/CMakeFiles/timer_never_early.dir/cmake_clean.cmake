file(REMOVE_RECURSE
  "CMakeFiles/timer_never_early.dir/never_early.c.o"
  "CMakeFiles/timer_never_early.dir/never_early.c.o.d"
  "timer_never_early"
  "timer_never_early.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/timer_never_early.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

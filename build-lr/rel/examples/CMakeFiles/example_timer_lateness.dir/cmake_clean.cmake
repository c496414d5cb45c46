file(REMOVE_RECURSE
  "CMakeFiles/example_timer_lateness.dir/timer_lateness.c.o"
  "CMakeFiles/example_timer_lateness.dir/timer_lateness.c.o.d"
  "timer_lateness"
  "timer_lateness.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/example_timer_lateness.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

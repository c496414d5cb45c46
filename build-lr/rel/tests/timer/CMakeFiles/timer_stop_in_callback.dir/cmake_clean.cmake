file(REMOVE_RECURSE
  "CMakeFiles/timer_stop_in_callback.dir/stop_in_callback.c.o"
  "CMakeFiles/timer_stop_in_callback.dir/stop_in_callback.c.o.d"
  "timer_stop_in_callback"
  "timer_stop_in_callback.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/timer_stop_in_callback.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

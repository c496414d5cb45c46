file(REMOVE_RECURSE
  "CMakeFiles/timer_realtime_change.dir/realtime_change.c.o"
  "CMakeFiles/timer_realtime_change.dir/realtime_change.c.o.d"
  "timer_realtime_change"
  "timer_realtime_change.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/timer_realtime_change.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

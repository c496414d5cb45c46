file(REMOVE_RECURSE
  "CMakeFiles/timer_settime.dir/settime.c.o"
  "CMakeFiles/timer_settime.dir/settime.c.o.d"
  "timer_settime"
  "timer_settime.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/timer_settime.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

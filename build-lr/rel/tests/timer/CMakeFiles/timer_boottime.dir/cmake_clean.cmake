file(REMOVE_RECURSE
  "CMakeFiles/timer_boottime.dir/boottime.c.o"
  "CMakeFiles/timer_boottime.dir/boottime.c.o.d"
  "timer_boottime"
  "timer_boottime.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/timer_boottime.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

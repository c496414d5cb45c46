file(REMOVE_RECURSE
  "CMakeFiles/timer_repeat.dir/repeat.c.o"
  "CMakeFiles/timer_repeat.dir/repeat.c.o.d"
  "timer_repeat"
  "timer_repeat.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/timer_repeat.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

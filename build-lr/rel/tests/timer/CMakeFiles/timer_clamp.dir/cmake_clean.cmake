file(REMOVE_RECURSE
  "CMakeFiles/timer_clamp.dir/clamp.c.o"
  "CMakeFiles/timer_clamp.dir/clamp.c.o.d"
  "timer_clamp"
  "timer_clamp.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/timer_clamp.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

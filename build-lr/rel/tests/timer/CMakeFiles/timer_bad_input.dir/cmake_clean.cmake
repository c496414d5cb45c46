file(REMOVE_RECURSE
  "CMakeFiles/timer_bad_input.dir/bad_input.c.o"
  "CMakeFiles/timer_bad_input.dir/bad_input.c.o.d"
  "timer_bad_input"
  "timer_bad_input.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/timer_bad_input.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

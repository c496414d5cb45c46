file(REMOVE_RECURSE
  "CMakeFiles/timer_rel_abs.dir/rel_abs.c.o"
  "CMakeFiles/timer_rel_abs.dir/rel_abs.c.o.d"
  "timer_rel_abs"
  "timer_rel_abs.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/timer_rel_abs.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

file(REMOVE_RECURSE
  "CMakeFiles/loop_once_after_timer.dir/once_after_timer.c.o"
  "CMakeFiles/loop_once_after_timer.dir/once_after_timer.c.o.d"
  "loop_once_after_timer"
  "loop_once_after_timer.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/loop_once_after_timer.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

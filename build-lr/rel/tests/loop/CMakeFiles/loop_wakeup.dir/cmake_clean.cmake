file(REMOVE_RECURSE
  "CMakeFiles/loop_wakeup.dir/wakeup.c.o"
  "CMakeFiles/loop_wakeup.dir/wakeup.c.o.d"
  "loop_wakeup"
  "loop_wakeup.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/loop_wakeup.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

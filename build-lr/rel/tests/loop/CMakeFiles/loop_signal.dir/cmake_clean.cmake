file(REMOVE_RECURSE
  "CMakeFiles/loop_signal.dir/signal.c.o"
  "CMakeFiles/loop_signal.dir/signal.c.o.d"
  "loop_signal"
  "loop_signal.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/loop_signal.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

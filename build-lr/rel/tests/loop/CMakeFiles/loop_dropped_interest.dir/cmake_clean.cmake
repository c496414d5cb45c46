file(REMOVE_RECURSE
  "CMakeFiles/loop_dropped_interest.dir/dropped_interest.c.o"
  "CMakeFiles/loop_dropped_interest.dir/dropped_interest.c.o.d"
  "loop_dropped_interest"
  "loop_dropped_interest.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/loop_dropped_interest.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

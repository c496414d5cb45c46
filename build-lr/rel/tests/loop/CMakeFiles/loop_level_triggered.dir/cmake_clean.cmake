file(REMOVE_RECURSE
  "CMakeFiles/loop_level_triggered.dir/level_triggered.c.o"
  "CMakeFiles/loop_level_triggered.dir/level_triggered.c.o.d"
  "loop_level_triggered"
  "loop_level_triggered.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/loop_level_triggered.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

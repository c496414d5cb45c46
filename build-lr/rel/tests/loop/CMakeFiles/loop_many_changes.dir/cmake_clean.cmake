file(REMOVE_RECURSE
  "CMakeFiles/loop_many_changes.dir/many_changes.c.o"
  "CMakeFiles/loop_many_changes.dir/many_changes.c.o.d"
  "loop_many_changes"
  "loop_many_changes.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/loop_many_changes.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

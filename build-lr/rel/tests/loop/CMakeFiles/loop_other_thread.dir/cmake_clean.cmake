file(REMOVE_RECURSE
  "CMakeFiles/loop_other_thread.dir/other_thread.c.o"
  "CMakeFiles/loop_other_thread.dir/other_thread.c.o.d"
  "loop_other_thread"
  "loop_other_thread.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/loop_other_thread.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

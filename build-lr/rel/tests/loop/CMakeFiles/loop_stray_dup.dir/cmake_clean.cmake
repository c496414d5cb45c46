file(REMOVE_RECURSE
  "CMakeFiles/loop_stray_dup.dir/stray_dup.c.o"
  "CMakeFiles/loop_stray_dup.dir/stray_dup.c.o.d"
  "loop_stray_dup"
  "loop_stray_dup.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/loop_stray_dup.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

file(REMOVE_RECURSE
  "CMakeFiles/loop_many_fds.dir/many_fds.c.o"
  "CMakeFiles/loop_many_fds.dir/many_fds.c.o.d"
  "loop_many_fds"
  "loop_many_fds.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/loop_many_fds.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

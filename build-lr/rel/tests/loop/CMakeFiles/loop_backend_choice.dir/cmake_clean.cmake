file(REMOVE_RECURSE
  "CMakeFiles/loop_backend_choice.dir/backend_choice.c.o"
  "CMakeFiles/loop_backend_choice.dir/backend_choice.c.o.d"
  "loop_backend_choice"
  "loop_backend_choice.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/loop_backend_choice.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

file(REMOVE_RECURSE
  "CMakeFiles/uring_one_enter_per_turn.dir/one_enter_per_turn.c.o"
  "CMakeFiles/uring_one_enter_per_turn.dir/one_enter_per_turn.c.o.d"
  "uring_one_enter_per_turn"
  "uring_one_enter_per_turn.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/uring_one_enter_per_turn.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

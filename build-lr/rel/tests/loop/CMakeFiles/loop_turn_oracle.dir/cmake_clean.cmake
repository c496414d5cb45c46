file(REMOVE_RECURSE
  "CMakeFiles/loop_turn_oracle.dir/turn_oracle.c.o"
  "CMakeFiles/loop_turn_oracle.dir/turn_oracle.c.o.d"
  "loop_turn_oracle"
  "loop_turn_oracle.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/loop_turn_oracle.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

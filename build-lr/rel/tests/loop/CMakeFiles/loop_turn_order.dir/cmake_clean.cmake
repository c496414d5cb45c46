file(REMOVE_RECURSE
  "CMakeFiles/loop_turn_order.dir/turn_order.c.o"
  "CMakeFiles/loop_turn_order.dir/turn_order.c.o.d"
  "loop_turn_order"
  "loop_turn_order.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/loop_turn_order.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

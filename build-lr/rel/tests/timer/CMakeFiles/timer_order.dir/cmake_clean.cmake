file(REMOVE_RECURSE
  "CMakeFiles/timer_order.dir/order.c.o"
  "CMakeFiles/timer_order.dir/order.c.o.d"
  "timer_order"
  "timer_order.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/timer_order.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

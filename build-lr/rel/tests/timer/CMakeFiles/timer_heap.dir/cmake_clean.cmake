file(REMOVE_RECURSE
  "CMakeFiles/timer_heap.dir/heap.c.o"
  "CMakeFiles/timer_heap.dir/heap.c.o.d"
  "timer_heap"
  "timer_heap.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/timer_heap.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

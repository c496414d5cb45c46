file(REMOVE_RECURSE
  "CMakeFiles/epoll1_batch_order.dir/batch_order.c.o"
  "CMakeFiles/epoll1_batch_order.dir/batch_order.c.o.d"
  "epoll1_batch_order"
  "epoll1_batch_order.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/epoll1_batch_order.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

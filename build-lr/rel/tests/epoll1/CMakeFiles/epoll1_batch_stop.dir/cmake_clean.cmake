file(REMOVE_RECURSE
  "CMakeFiles/epoll1_batch_stop.dir/batch_stop.c.o"
  "CMakeFiles/epoll1_batch_stop.dir/batch_stop.c.o.d"
  "epoll1_batch_stop"
  "epoll1_batch_stop.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/epoll1_batch_stop.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

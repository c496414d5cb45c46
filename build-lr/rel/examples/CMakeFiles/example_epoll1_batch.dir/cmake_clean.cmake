file(REMOVE_RECURSE
  "CMakeFiles/example_epoll1_batch.dir/epoll1_batch.c.o"
  "CMakeFiles/example_epoll1_batch.dir/epoll1_batch.c.o.d"
  "epoll1_batch"
  "epoll1_batch.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/example_epoll1_batch.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

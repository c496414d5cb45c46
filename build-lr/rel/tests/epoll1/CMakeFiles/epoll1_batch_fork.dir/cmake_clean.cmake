file(REMOVE_RECURSE
  "CMakeFiles/epoll1_batch_fork.dir/batch_fork.c.o"
  "CMakeFiles/epoll1_batch_fork.dir/batch_fork.c.o.d"
  "epoll1_batch_fork"
  "epoll1_batch_fork.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/epoll1_batch_fork.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

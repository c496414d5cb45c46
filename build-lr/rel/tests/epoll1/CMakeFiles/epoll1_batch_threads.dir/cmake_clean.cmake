file(REMOVE_RECURSE
  "CMakeFiles/epoll1_batch_threads.dir/batch_threads.c.o"
  "CMakeFiles/epoll1_batch_threads.dir/batch_threads.c.o.d"
  "epoll1_batch_threads"
  "epoll1_batch_threads.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/epoll1_batch_threads.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

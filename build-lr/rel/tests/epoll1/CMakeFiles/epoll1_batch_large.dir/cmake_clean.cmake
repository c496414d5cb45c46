file(REMOVE_RECURSE
  "CMakeFiles/epoll1_batch_large.dir/batch_large.c.o"
  "CMakeFiles/epoll1_batch_large.dir/batch_large.c.o.d"
  "epoll1_batch_large"
  "epoll1_batch_large.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/epoll1_batch_large.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

file(REMOVE_RECURSE
  "CMakeFiles/epoll1_batch_errors.dir/batch_errors.c.o"
  "CMakeFiles/epoll1_batch_errors.dir/batch_errors.c.o.d"
  "epoll1_batch_errors"
  "epoll1_batch_errors.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/epoll1_batch_errors.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

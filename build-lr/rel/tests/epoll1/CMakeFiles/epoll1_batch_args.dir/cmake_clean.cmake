file(REMOVE_RECURSE
  "CMakeFiles/epoll1_batch_args.dir/batch_args.c.o"
  "CMakeFiles/epoll1_batch_args.dir/batch_args.c.o.d"
  "epoll1_batch_args"
  "epoll1_batch_args.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/epoll1_batch_args.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

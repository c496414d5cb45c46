file(REMOVE_RECURSE
  "CMakeFiles/epoll1_pwait1_args.dir/pwait1_args.c.o"
  "CMakeFiles/epoll1_pwait1_args.dir/pwait1_args.c.o.d"
  "epoll1_pwait1_args"
  "epoll1_pwait1_args.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/epoll1_pwait1_args.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

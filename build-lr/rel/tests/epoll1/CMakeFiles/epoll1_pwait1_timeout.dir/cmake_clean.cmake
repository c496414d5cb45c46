file(REMOVE_RECURSE
  "CMakeFiles/epoll1_pwait1_timeout.dir/pwait1_timeout.c.o"
  "CMakeFiles/epoll1_pwait1_timeout.dir/pwait1_timeout.c.o.d"
  "epoll1_pwait1_timeout"
  "epoll1_pwait1_timeout.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/epoll1_pwait1_timeout.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

file(REMOVE_RECURSE
  "CMakeFiles/epoll1_pwait1_sigmask.dir/pwait1_sigmask.c.o"
  "CMakeFiles/epoll1_pwait1_sigmask.dir/pwait1_sigmask.c.o.d"
  "epoll1_pwait1_sigmask"
  "epoll1_pwait1_sigmask.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/epoll1_pwait1_sigmask.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

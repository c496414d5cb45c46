file(REMOVE_RECURSE
  "CMakeFiles/epoll1_pwait1_settime.dir/pwait1_settime.c.o"
  "CMakeFiles/epoll1_pwait1_settime.dir/pwait1_settime.c.o.d"
  "epoll1_pwait1_settime"
  "epoll1_pwait1_settime.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/epoll1_pwait1_settime.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

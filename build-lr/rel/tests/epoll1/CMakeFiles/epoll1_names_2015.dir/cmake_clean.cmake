file(REMOVE_RECURSE
  "CMakeFiles/epoll1_names_2015.dir/names_2015.c.o"
  "CMakeFiles/epoll1_names_2015.dir/names_2015.c.o.d"
  "epoll1_names_2015"
  "epoll1_names_2015.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/epoll1_names_2015.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

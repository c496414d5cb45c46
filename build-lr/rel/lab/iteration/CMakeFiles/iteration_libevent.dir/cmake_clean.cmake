file(REMOVE_RECURSE
  "../iteration_libevent"
  "../iteration_libevent.pdb"
  "CMakeFiles/iteration_libevent.dir/iteration_libevent.c.o"
  "CMakeFiles/iteration_libevent.dir/iteration_libevent.c.o.d"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/iteration_libevent.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

file(REMOVE_RECURSE
  "CMakeFiles/preload_poll.dir/poll.c.o"
  "CMakeFiles/preload_poll.dir/poll.c.o.d"
  "preload_poll"
  "preload_poll.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/preload_poll.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

file(REMOVE_RECURSE
  "../smallset_libevent"
  "../smallset_libevent.pdb"
  "CMakeFiles/smallset_libevent.dir/smallset_libevent.c.o"
  "CMakeFiles/smallset_libevent.dir/smallset_libevent.c.o.d"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/smallset_libevent.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

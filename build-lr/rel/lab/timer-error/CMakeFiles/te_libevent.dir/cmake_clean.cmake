file(REMOVE_RECURSE
  "../te_libevent"
  "../te_libevent.pdb"
  "CMakeFiles/te_libevent.dir/te_libevent.c.o"
  "CMakeFiles/te_libevent.dir/te_libevent.c.o.d"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/te_libevent.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

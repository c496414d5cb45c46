file(REMOVE_RECURSE
  "../smallset_libuv"
  "../smallset_libuv.pdb"
  "CMakeFiles/smallset_libuv.dir/smallset_libuv.c.o"
  "CMakeFiles/smallset_libuv.dir/smallset_libuv.c.o.d"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/smallset_libuv.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

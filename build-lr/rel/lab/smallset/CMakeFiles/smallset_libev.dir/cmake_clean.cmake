file(REMOVE_RECURSE
  "../smallset_libev"
  "../smallset_libev.pdb"
  "CMakeFiles/smallset_libev.dir/smallset_libev.c.o"
  "CMakeFiles/smallset_libev.dir/smallset_libev.c.o.d"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/smallset_libev.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

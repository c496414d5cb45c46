file(REMOVE_RECURSE
  "../smallset_vigil"
  "../smallset_vigil.pdb"
  "CMakeFiles/smallset_vigil.dir/smallset_vigil.c.o"
  "CMakeFiles/smallset_vigil.dir/smallset_vigil.c.o.d"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/smallset_vigil.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

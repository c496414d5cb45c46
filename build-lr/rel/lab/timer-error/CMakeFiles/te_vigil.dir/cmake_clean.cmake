file(REMOVE_RECURSE
  "../te_vigil"
  "../te_vigil.pdb"
  "CMakeFiles/te_vigil.dir/te_vigil.c.o"
  "CMakeFiles/te_vigil.dir/te_vigil.c.o.d"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/te_vigil.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

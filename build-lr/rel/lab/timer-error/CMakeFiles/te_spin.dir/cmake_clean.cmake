file(REMOVE_RECURSE
  "../te_spin"
  "../te_spin.pdb"
  "CMakeFiles/te_spin.dir/te_spin.c.o"
  "CMakeFiles/te_spin.dir/te_spin.c.o.d"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/te_spin.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

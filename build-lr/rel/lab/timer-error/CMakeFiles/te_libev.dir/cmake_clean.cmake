file(REMOVE_RECURSE
  "../te_libev"
  "../te_libev.pdb"
  "CMakeFiles/te_libev.dir/te_libev.c.o"
  "CMakeFiles/te_libev.dir/te_libev.c.o.d"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/te_libev.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

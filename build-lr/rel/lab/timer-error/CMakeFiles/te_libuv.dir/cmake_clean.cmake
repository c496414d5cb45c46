file(REMOVE_RECURSE
  "../te_libuv"
  "../te_libuv.pdb"
  "CMakeFiles/te_libuv.dir/te_libuv.c.o"
  "CMakeFiles/te_libuv.dir/te_libuv.c.o.d"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/te_libuv.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

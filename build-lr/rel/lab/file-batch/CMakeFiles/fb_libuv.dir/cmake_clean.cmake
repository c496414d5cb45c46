file(REMOVE_RECURSE
  "../fb_libuv"
  "../fb_libuv.pdb"
  "CMakeFiles/fb_libuv.dir/fb_libuv.c.o"
  "CMakeFiles/fb_libuv.dir/fb_libuv.c.o.d"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/fb_libuv.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

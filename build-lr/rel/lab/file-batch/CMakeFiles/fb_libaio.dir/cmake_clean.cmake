file(REMOVE_RECURSE
  "../fb_libaio"
  "../fb_libaio.pdb"
  "CMakeFiles/fb_libaio.dir/fb_libaio.c.o"
  "CMakeFiles/fb_libaio.dir/fb_libaio.c.o.d"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/fb_libaio.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

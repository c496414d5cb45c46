file(REMOVE_RECURSE
  "../fb_vigil"
  "../fb_vigil.pdb"
  "CMakeFiles/fb_vigil.dir/fb_vigil.c.o"
  "CMakeFiles/fb_vigil.dir/fb_vigil.c.o.d"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/fb_vigil.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

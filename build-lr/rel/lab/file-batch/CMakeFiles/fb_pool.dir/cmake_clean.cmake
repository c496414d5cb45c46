file(REMOVE_RECURSE
  "../fb_pool"
  "../fb_pool.pdb"
  "CMakeFiles/fb_pool.dir/fb_pool.c.o"
  "CMakeFiles/fb_pool.dir/fb_pool.c.o.d"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/fb_pool.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

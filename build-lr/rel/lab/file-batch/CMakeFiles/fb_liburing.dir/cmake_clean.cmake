file(REMOVE_RECURSE
  "../fb_liburing"
  "../fb_liburing.pdb"
  "CMakeFiles/fb_liburing.dir/fb_liburing.c.o"
  "CMakeFiles/fb_liburing.dir/fb_liburing.c.o.d"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/fb_liburing.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

file(REMOVE_RECURSE
  "CMakeFiles/file_eagain_bounded.dir/eagain_bounded.c.o"
  "CMakeFiles/file_eagain_bounded.dir/eagain_bounded.c.o.d"
  "file_eagain_bounded"
  "file_eagain_bounded.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/file_eagain_bounded.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

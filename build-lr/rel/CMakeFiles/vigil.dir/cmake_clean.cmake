file(REMOVE_RECURSE
  "libvigil.pdb"
  "libvigil.so"
  "libvigil.so.0"
  "libvigil.so.0.1.0"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/vigil.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

file(REMOVE_RECURSE
  "libvigil.a"
  "libvigil.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/vigil_static.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

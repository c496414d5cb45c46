file(REMOVE_RECURSE
  "../../libvigil-mq.pdb"
  "../../libvigil-mq.so"
  "CMakeFiles/vigil_mq_preload.dir/mq_preload.c.o"
  "CMakeFiles/vigil_mq_preload.dir/mq_preload.c.o.d"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/vigil_mq_preload.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

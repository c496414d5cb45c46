file(REMOVE_RECURSE
  "CMakeFiles/mq_smoke.dir/smoke.c.o"
  "CMakeFiles/mq_smoke.dir/smoke.c.o.d"
  "mq_smoke"
  "mq_smoke.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/mq_smoke.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

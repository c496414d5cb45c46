file(REMOVE_RECURSE
  "CMakeFiles/mq_fuzz_driver.dir/driver.c.o"
  "CMakeFiles/mq_fuzz_driver.dir/driver.c.o.d"
  "CMakeFiles/mq_fuzz_driver.dir/mq_fuzz.c.o"
  "CMakeFiles/mq_fuzz_driver.dir/mq_fuzz.c.o.d"
  "mq_fuzz_driver"
  "mq_fuzz_driver.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/mq_fuzz_driver.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

file(REMOVE_RECURSE
  "CMakeFiles/mq_nonblock.dir/nonblock.c.o"
  "CMakeFiles/mq_nonblock.dir/nonblock.c.o.d"
  "mq_nonblock"
  "mq_nonblock.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/mq_nonblock.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

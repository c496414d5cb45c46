file(REMOVE_RECURSE
  "../mq_empty_boost"
  "../mq_empty_boost.pdb"
  "CMakeFiles/mq_empty_boost.dir/boost.cpp.o"
  "CMakeFiles/mq_empty_boost.dir/boost.cpp.o.d"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/mq_empty_boost.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

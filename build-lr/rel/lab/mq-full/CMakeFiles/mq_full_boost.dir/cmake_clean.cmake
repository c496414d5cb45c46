file(REMOVE_RECURSE
  "../mq_full_boost"
  "../mq_full_boost.pdb"
  "CMakeFiles/mq_full_boost.dir/boost.cpp.o"
  "CMakeFiles/mq_full_boost.dir/boost.cpp.o.d"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/mq_full_boost.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

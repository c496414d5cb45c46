file(REMOVE_RECURSE
  "../mq_pingpong_boost"
  "../mq_pingpong_boost.pdb"
  "CMakeFiles/mq_pingpong_boost.dir/boost.cpp.o"
  "CMakeFiles/mq_pingpong_boost.dir/boost.cpp.o.d"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/mq_pingpong_boost.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

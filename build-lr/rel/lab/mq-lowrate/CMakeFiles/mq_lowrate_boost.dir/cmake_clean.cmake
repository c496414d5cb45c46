file(REMOVE_RECURSE
  "../mq_lowrate_boost"
  "../mq_lowrate_boost.pdb"
  "CMakeFiles/mq_lowrate_boost.dir/boost.cpp.o"
  "CMakeFiles/mq_lowrate_boost.dir/boost.cpp.o.d"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/mq_lowrate_boost.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

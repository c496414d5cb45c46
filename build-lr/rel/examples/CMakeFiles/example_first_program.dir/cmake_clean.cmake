file(REMOVE_RECURSE
  "CMakeFiles/example_first_program.dir/first_program.c.o"
  "CMakeFiles/example_first_program.dir/first_program.c.o.d"
  "first_program"
  "first_program.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/example_first_program.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

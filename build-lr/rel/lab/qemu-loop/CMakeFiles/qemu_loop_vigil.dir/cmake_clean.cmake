file(REMOVE_RECURSE
  "../qemu_loop_vigil"
  "../qemu_loop_vigil.pdb"
  "CMakeFiles/qemu_loop_vigil.dir/qemu_loop_vigil.c.o"
  "CMakeFiles/qemu_loop_vigil.dir/qemu_loop_vigil.c.o.d"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/qemu_loop_vigil.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

file(REMOVE_RECURSE
  "../qemu_loop_libev"
  "../qemu_loop_libev.pdb"
  "CMakeFiles/qemu_loop_libev.dir/qemu_loop_libev.c.o"
  "CMakeFiles/qemu_loop_libev.dir/qemu_loop_libev.c.o.d"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/qemu_loop_libev.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

file(REMOVE_RECURSE
  "../qemu_loop_libuv"
  "../qemu_loop_libuv.pdb"
  "CMakeFiles/qemu_loop_libuv.dir/qemu_loop_libuv.c.o"
  "CMakeFiles/qemu_loop_libuv.dir/qemu_loop_libuv.c.o.d"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/qemu_loop_libuv.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

file(REMOVE_RECURSE
  "../qemu_loop_liburing"
  "../qemu_loop_liburing.pdb"
  "CMakeFiles/qemu_loop_liburing.dir/qemu_loop_liburing.c.o"
  "CMakeFiles/qemu_loop_liburing.dir/qemu_loop_liburing.c.o.d"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/qemu_loop_liburing.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

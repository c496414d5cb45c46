file(REMOVE_RECURSE
  "../qemu_loop_kernel"
  "../qemu_loop_kernel.pdb"
  "CMakeFiles/qemu_loop_kernel.dir/qemu_loop_kernel.c.o"
  "CMakeFiles/qemu_loop_kernel.dir/qemu_loop_kernel.c.o.d"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/qemu_loop_kernel.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

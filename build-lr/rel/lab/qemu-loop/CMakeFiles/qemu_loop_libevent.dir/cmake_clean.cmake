file(REMOVE_RECURSE
  "../qemu_loop_libevent"
  "../qemu_loop_libevent.pdb"
  "CMakeFiles/qemu_loop_libevent.dir/qemu_loop_libevent.c.o"
  "CMakeFiles/qemu_loop_libevent.dir/qemu_loop_libevent.c.o.d"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/qemu_loop_libevent.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

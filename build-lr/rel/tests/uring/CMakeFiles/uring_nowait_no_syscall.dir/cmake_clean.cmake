file(REMOVE_RECURSE
  "CMakeFiles/uring_nowait_no_syscall.dir/nowait_no_syscall.c.o"
  "CMakeFiles/uring_nowait_no_syscall.dir/nowait_no_syscall.c.o.d"
  "uring_nowait_no_syscall"
  "uring_nowait_no_syscall.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/uring_nowait_no_syscall.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

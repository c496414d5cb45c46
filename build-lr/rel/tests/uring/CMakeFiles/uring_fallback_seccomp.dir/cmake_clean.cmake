file(REMOVE_RECURSE
  "CMakeFiles/uring_fallback_seccomp.dir/fallback_seccomp.c.o"
  "CMakeFiles/uring_fallback_seccomp.dir/fallback_seccomp.c.o.d"
  "uring_fallback_seccomp"
  "uring_fallback_seccomp.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/uring_fallback_seccomp.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

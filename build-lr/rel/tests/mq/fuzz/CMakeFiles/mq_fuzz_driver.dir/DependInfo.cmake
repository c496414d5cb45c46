
# Consider dependencies only in project.
set(CMAKE_DEPENDS_IN_PROJECT_ONLY OFF)

# The set of languages for which implicit dependencies are needed:
set(CMAKE_DEPENDS_LANGUAGES
  )

# The set of dependency files which are needed:
set(CMAKE_DEPENDS_DEPENDENCY_FILES
  "/work/main/fuzz/driver.c" "tests/mq/fuzz/CMakeFiles/mq_fuzz_driver.dir/driver.c.o" "gcc" "tests/mq/fuzz/CMakeFiles/mq_fuzz_driver.dir/driver.c.o.d"
  "/work/main/fuzz/mq_fuzz.c" "tests/mq/fuzz/CMakeFiles/mq_fuzz_driver.dir/mq_fuzz.c.o" "gcc" "tests/mq/fuzz/CMakeFiles/mq_fuzz_driver.dir/mq_fuzz.c.o.d"
  )

# Targets to which this target links.
set(CMAKE_TARGET_LINKED_INFO_FILES
  "/work/main/build-lr/rel/CMakeFiles/vigil_static.dir/DependInfo.cmake"
  )

# Fortran module output directory.
set(CMAKE_Fortran_TARGET_MODULE_DIR "")

# Included by lab/mq-empty, lab/mq-full and lab/mq-pingpong: builds a benchmark's three
# programs, <prefix>_kernel, <prefix>_boost and <prefix>_vigil, from kernel.c, boost.cpp
# and vigil.c in the including folder (each a system adapter plus the folder's driver).
set(MQLAB_COMMON ${CMAKE_CURRENT_LIST_DIR})

function(mqlab_programs prefix)
  vigil_bench(${prefix}_kernel SOURCES kernel.c INCLUDES ${MQLAB_COMMON} LIBS rt)
  vigil_bench(${prefix}_boost SOURCES boost.cpp INCLUDES ${MQLAB_COMMON} LIBS rt Threads::Threads)
  # The project's warning list is C's; -Wshadow trips on bench.h's struct/function pair in C++.
  get_target_property(opts ${prefix}_boost COMPILE_OPTIONS)
  list(REMOVE_ITEM opts -Wstrict-prototypes -Wshadow)
  set_target_properties(${prefix}_boost PROPERTIES COMPILE_OPTIONS "${opts}")
  vigil_bench(${prefix}_vigil SOURCES vigil.c INCLUDES ${MQLAB_COMMON} LIBS vigil)
endfunction()

# The three message-queue benchmarks (mq-empty, mq-full, mq-pingpong) build the same
# three programs, <prefix>_kernel, <prefix>_boost and <prefix>_vigil, from kernel.c,
# boost.cpp and vigil.c in their own folder: each is one system's queue adapter from
# here (mq/sys_<system>.h) plus the folder's driver.
function(lab_mq_programs prefix)
  vigil_bench(${prefix}_kernel SOURCES kernel.c PEERS rt)
  vigil_bench(${prefix}_boost SOURCES boost.cpp PEERS boost)
  vigil_bench(${prefix}_vigil SOURCES vigil.c PEERS vigil)
endfunction()

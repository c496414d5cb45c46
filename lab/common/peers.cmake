# The lab's one way to find the peers its programs are measured against. Each found peer
# becomes an INTERFACE target lab_peer_<name>; vigil_bench(... PEERS <name> ...) links it,
# or leaves the program unbuilt (run.py then reports its steps as skipped) when the peer
# is missing. Names: vigil, libuv, libev, libevent, liburing, libaio, boost, and the
# system's own libraries rt, util and threads.
find_package(PkgConfig REQUIRED)
find_package(Threads REQUIRED)

function(lab_peer name)
  add_library(lab_peer_${name} INTERFACE)
  target_link_libraries(lab_peer_${name} INTERFACE ${ARGN})
endfunction()

lab_peer(vigil vigil)
lab_peer(rt rt)
lab_peer(util util)
lab_peer(threads Threads::Threads)

pkg_check_modules(LAB_LIBUV QUIET IMPORTED_TARGET libuv)
if(LAB_LIBUV_FOUND)
  lab_peer(libuv PkgConfig::LAB_LIBUV)
endif()
# libevent_core: the event loop without the HTTP/DNS parts.
pkg_check_modules(LAB_LIBEVENT QUIET IMPORTED_TARGET libevent_core)
if(LAB_LIBEVENT_FOUND)
  lab_peer(libevent PkgConfig::LAB_LIBEVENT)
endif()
pkg_check_modules(LAB_LIBURING QUIET IMPORTED_TARGET liburing)
if(LAB_LIBURING_FOUND)
  lab_peer(liburing PkgConfig::LAB_LIBURING)
endif()
# libev and libaio ship no pkg-config file on Debian.
find_library(LAB_LIBEV_LIB ev)
find_path(LAB_LIBEV_INC ev.h)
if(LAB_LIBEV_LIB AND LAB_LIBEV_INC)
  lab_peer(libev ${LAB_LIBEV_LIB})
  target_include_directories(lab_peer_libev INTERFACE ${LAB_LIBEV_INC})
endif()
find_library(LAB_LIBAIO_LIB aio)
if(LAB_LIBAIO_LIB)
  lab_peer(libaio ${LAB_LIBAIO_LIB})
endif()
# Boost.Interprocess is header-only.
find_path(LAB_BOOST_INC boost/interprocess/ipc/message_queue.hpp)
if(LAB_BOOST_INC)
  lab_peer(boost Threads::Threads rt)
  target_include_directories(lab_peer_boost INTERFACE ${LAB_BOOST_INC})
endif()

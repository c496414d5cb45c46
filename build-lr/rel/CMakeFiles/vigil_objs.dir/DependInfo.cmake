
# Consider dependencies only in project.
set(CMAKE_DEPENDS_IN_PROJECT_ONLY OFF)

# The set of languages for which implicit dependencies are needed:
set(CMAKE_DEPENDS_LANGUAGES
  )

# The set of dependency files which are needed:
set(CMAKE_DEPENDS_DEPENDENCY_FILES
  "/work/main/src/backend/epoll.c" "CMakeFiles/vigil_objs.dir/src/backend/epoll.c.o" "gcc" "CMakeFiles/vigil_objs.dir/src/backend/epoll.c.o.d"
  "/work/main/src/backend/poll.c" "CMakeFiles/vigil_objs.dir/src/backend/poll.c.o" "gcc" "CMakeFiles/vigil_objs.dir/src/backend/poll.c.o.d"
  "/work/main/src/backend/uring.c" "CMakeFiles/vigil_objs.dir/src/backend/uring.c.o" "gcc" "CMakeFiles/vigil_objs.dir/src/backend/uring.c.o.d"
  "/work/main/src/epoll1/epoll1.c" "CMakeFiles/vigil_objs.dir/src/epoll1/epoll1.c.o" "gcc" "CMakeFiles/vigil_objs.dir/src/epoll1/epoll1.c.o.d"
  "/work/main/src/file/done.c" "CMakeFiles/vigil_objs.dir/src/file/done.c.o" "gcc" "CMakeFiles/vigil_objs.dir/src/file/done.c.o.d"
  "/work/main/src/file/engine_aio.c" "CMakeFiles/vigil_objs.dir/src/file/engine_aio.c.o" "gcc" "CMakeFiles/vigil_objs.dir/src/file/engine_aio.c.o.d"
  "/work/main/src/file/engine_threads.c" "CMakeFiles/vigil_objs.dir/src/file/engine_threads.c.o" "gcc" "CMakeFiles/vigil_objs.dir/src/file/engine_threads.c.o.d"
  "/work/main/src/file/engine_uring.c" "CMakeFiles/vigil_objs.dir/src/file/engine_uring.c.o" "gcc" "CMakeFiles/vigil_objs.dir/src/file/engine_uring.c.o.d"
  "/work/main/src/file/front.c" "CMakeFiles/vigil_objs.dir/src/file/front.c.o" "gcc" "CMakeFiles/vigil_objs.dir/src/file/front.c.o.d"
  "/work/main/src/loop/fd.c" "CMakeFiles/vigil_objs.dir/src/loop/fd.c.o" "gcc" "CMakeFiles/vigil_objs.dir/src/loop/fd.c.o.d"
  "/work/main/src/loop/loop.c" "CMakeFiles/vigil_objs.dir/src/loop/loop.c.o" "gcc" "CMakeFiles/vigil_objs.dir/src/loop/loop.c.o.d"
  "/work/main/src/loop/signal.c" "CMakeFiles/vigil_objs.dir/src/loop/signal.c.o" "gcc" "CMakeFiles/vigil_objs.dir/src/loop/signal.c.o.d"
  "/work/main/src/loop/timer.c" "CMakeFiles/vigil_objs.dir/src/loop/timer.c.o" "gcc" "CMakeFiles/vigil_objs.dir/src/loop/timer.c.o.d"
  "/work/main/src/mq/check.c" "CMakeFiles/vigil_objs.dir/src/mq/check.c.o" "gcc" "CMakeFiles/vigil_objs.dir/src/mq/check.c.o.d"
  "/work/main/src/mq/lock.c" "CMakeFiles/vigil_objs.dir/src/mq/lock.c.o" "gcc" "CMakeFiles/vigil_objs.dir/src/mq/lock.c.o.d"
  "/work/main/src/mq/notify.c" "CMakeFiles/vigil_objs.dir/src/mq/notify.c.o" "gcc" "CMakeFiles/vigil_objs.dir/src/mq/notify.c.o.d"
  "/work/main/src/mq/posix.c" "CMakeFiles/vigil_objs.dir/src/mq/posix.c.o" "gcc" "CMakeFiles/vigil_objs.dir/src/mq/posix.c.o.d"
  "/work/main/src/mq/receive.c" "CMakeFiles/vigil_objs.dir/src/mq/receive.c.o" "gcc" "CMakeFiles/vigil_objs.dir/src/mq/receive.c.o.d"
  "/work/main/src/mq/segment.c" "CMakeFiles/vigil_objs.dir/src/mq/segment.c.o" "gcc" "CMakeFiles/vigil_objs.dir/src/mq/segment.c.o.d"
  "/work/main/src/mq/send.c" "CMakeFiles/vigil_objs.dir/src/mq/send.c.o" "gcc" "CMakeFiles/vigil_objs.dir/src/mq/send.c.o.d"
  "/work/main/src/mq/wait.c" "CMakeFiles/vigil_objs.dir/src/mq/wait.c.o" "gcc" "CMakeFiles/vigil_objs.dir/src/mq/wait.c.o.d"
  "/work/main/src/mq/watch.c" "CMakeFiles/vigil_objs.dir/src/mq/watch.c.o" "gcc" "CMakeFiles/vigil_objs.dir/src/mq/watch.c.o.d"
  "/work/main/src/ring/ring.c" "CMakeFiles/vigil_objs.dir/src/ring/ring.c.o" "gcc" "CMakeFiles/vigil_objs.dir/src/ring/ring.c.o.d"
  "/work/main/src/sys/probe.c" "CMakeFiles/vigil_objs.dir/src/sys/probe.c.o" "gcc" "CMakeFiles/vigil_objs.dir/src/sys/probe.c.o.d"
  "/work/main/src/sys/version.c" "CMakeFiles/vigil_objs.dir/src/sys/version.c.o" "gcc" "CMakeFiles/vigil_objs.dir/src/sys/version.c.o.d"
  )

# Targets to which this target links.
set(CMAKE_TARGET_LINKED_INFO_FILES
  )

# Fortran module output directory.
set(CMAKE_Fortran_TARGET_MODULE_DIR "")

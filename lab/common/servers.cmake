# The hand-written servers several benchmarks run (net-echo, net-fair; srv.h: their CLI):
# level-triggered epoll (system "kernel", case "epoll") and liburing (multishot receive
# from a provided-buffer ring), each echoing or, with `PROG PORT http`, answering HTTP.
vigil_bench(srv_epoll SOURCES ${VIGIL_LAB_COMMON}/server_epoll.c)
vigil_bench(srv_liburing SOURCES ${VIGIL_LAB_COMMON}/server_liburing.c PEERS liburing)

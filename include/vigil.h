/* vigil: a runtime for Linux programs that wait -- on file descriptors, deadlines,
 * messages from other processes and file I/O.
 *
 * The umbrella header: includes every part of the native API. Each part may also be
 * included on its own; each includes only the base, <vigil/loop.h> (<vigil/tls.h> also
 * <vigil/net.h>, whose sockets it rides), never this file.
 *   <vigil/loop.h>      the loop, fd watchers, timers, signals, wakeup; the version,
 *                       the conventions every call follows
 *   <vigil/file.h>      asynchronous file I/O in the loop
 *   <vigil/fswatch.h>   file-system events (inotify), recursive if asked
 *   <vigil/mq_watch.h>  a vigil message queue watched by the loop (and <vigil/mq.h>,
 *                       the queues themselves)
 *   <vigil/net.h>       sockets owned by the loop
 *   <vigil/proc.h>      child processes: start, exit through a pidfd, kill
 *   <vigil/work.h>      a work queue: functions run on the loop's pool threads
 *   <vigil/dns.h>       name lookup in the loop (a resolver over vigil's sockets)
 * <vigil/epoll1.h> (epoll_ctl_batch, epoll_pwait1) is not included: include it yourself.
 */
#ifndef VIGIL_H
#define VIGIL_H

#include "vigil/loop.h"

#include "vigil/file.h"
#include "vigil/fswatch.h"
#include "vigil/mq_watch.h"
#include "vigil/net.h"
#include "vigil/proc.h"
#include "vigil/work.h"
#include "vigil/dns.h"
#include "vigil/tls.h"

#endif

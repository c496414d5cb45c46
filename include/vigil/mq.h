/* vigil/mq.h: POSIX message queues in shared memory.
 *
 * The same calls, signatures and types as <mqueue.h> (mqd_t, struct mq_attr, struct
 * sigevent) with a vigil_ prefix, so a program converts by renaming its calls. Errors
 * follow POSIX: -1 and errno (the one place vigil uses that convention besides the
 * 2015 epoll calls). mq_overview(7) and the POSIX definitions are the specification;
 * this header lists only where vigil differs from the kernel's queues.
 *
 * Where the queues live
 *   Each queue is one regular file (a shared-memory object) named after the queue:
 *   "/name" is the file "<dir>/vigil.mq.name" where <dir> is the environment variable
 *   VIGIL_MQ_DIR if set at the call, else /dev/shm. Processes that share a queue must
 *   agree on the directory. The kernel's /dev/mqueue, its limits (msg_max 10,
 *   msgsize_max 8192, queues_max 256, RLIMIT_MSGQUEUE) and its namespaces do not
 *   apply; the file system's own limits (tmpfs size, inodes) do. A queue's file is
 *   about 280 KiB (header, waiter records, one list head per priority) plus
 *   mq_maxmsg * (mq_msgsize + 16) bytes, rounded to 8; tmpfs backs only the pages a
 *   queue has touched, so a deep queue costs memory only as it fills.
 *
 * Names
 *   As mq_open(3): a leading '/' (else EINVAL), at least one more character ("/" alone
 *   is ENOENT), no other '/' (EACCES), at most NAME_MAX-9 = 246 characters after the
 *   '/' (ENAMETOOLONG: the "vigil.mq." prefix takes 9 of the file name's 255).
 *
 * Access
 *   Mode bits (after umask) are those of the file and are enforced by the operating
 *   system when the file is opened. Because receiving writes to the shared memory
 *   (it dequeues), and sending reads it (it checks the queue's state), EVERY open,
 *   whatever its O_RDONLY/O_WRONLY/O_RDWR, needs read AND write permission on the
 *   object; without them it fails with EACCES. A kernel queue needs only read
 *   permission for O_RDONLY and only write permission for O_WRONLY. The access mode
 *   still limits the descriptor: vigil_mq_send on an O_RDONLY descriptor and
 *   vigil_mq_receive on an O_WRONLY one fail with EBADF, as with the kernel.
 *
 * Limits (struct mq_attr at O_CREAT; attr NULL gives 10 messages of 8192 bytes, the
 * kernel's defaults)
 *   1 <= mq_maxmsg  <= VIGIL_MQ_MAXMSG_MAX  (1 << 20)
 *   1 <= mq_msgsize <= VIGIL_MQ_MSGSIZE_MAX (16 MiB)
 *   mq_maxmsg * mq_msgsize (rounded up to 8 bytes each) <= VIGIL_MQ_BYTES_MAX (1 GiB)
 *   Outside these: EINVAL, as the kernel answers for values past its maxima. Queues
 *   deeper or larger than the kernel allows need no privilege.
 *   Priorities 0 .. MQ_PRIO_MAX-1 (32768); larger is EINVAL.
 *   At most VIGIL_MQ_OPEN_MAX descriptors (1024) open at once in one process: EMFILE.
 *
 * Descriptors
 *   mqd_t is an index into a table of this process; it is not a file descriptor (do
 *   not poll(), close() or dup() it; use vigil_mq_watch for the loop). A closed,
 *   never-opened or out-of-range descriptor is EBADF. Descriptors stay valid in a child
 *   after fork() (the mapping is shared). They are not inherited across execve().
 *   Each descriptor holds its own O_NONBLOCK flag (vigil_mq_setattr changes only that
 *   one). vigil_mq_unlink removes the name; descriptors already open keep working and
 *   the memory is freed when the last process unmaps it.
 *
 * Ordering, blocking, timeouts
 *   Highest priority first, FIFO within a priority (O(1) per operation). A full queue
 *   blocks senders, an empty one receivers (unless O_NONBLOCK: EAGAIN). Timeouts are
 *   absolute CLOCK_REALTIME; a bad timespec is EINVAL before anything else is looked at,
 *   whether or not the call would block (the kernel's order; POSIX's text asks it only
 *   of a call that blocks); a NULL abs_timeout blocks without limit (as the kernel's
 *   system calls). A signal
 *   handler installed without SA_RESTART that runs while a call is blocked makes it
 *   fail with EINTR, unless it already has its message (or room), which it then
 *   returns; with SA_RESTART the wait goes on (signal(7) lists the mq calls as
 *   restartable). Two departures: on kernels before 5.16 (no futex_waitv) a timed call
 *   fails with EINTR after an SA_RESTART handler too; and a signal that arrives within
 *   a fixed sub-microsecond window just before the call goes to sleep in the kernel
 *   (src/mq/wait.c, SIGNALS) has its handler run without interrupting the call. A
 *   blocked call that polls before sleeping blocks the thread's signals meanwhile
 *   (except SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP), so a process-directed signal
 *   may go to another thread of the process then.
 *   A blocked thread sleeps until woken or its deadline, without periodic checks. A
 *   process killed between handing a message (or room) to a blocked thread and waking
 *   it leaves that thread asleep until the next send or receive on the queue by any
 *   process, which wakes it.
 *
 * Crash robustness and commit points
 *   A process may die (even SIGKILL) anywhere inside any call. The queue lock holds its
 *   owner's thread id; a thread that waits for it asks the kernel whether that thread
 *   still exists and, if not, takes the lock over and finishes or undoes the dead
 *   owner's half-done operation (every operation has one commit store; the rest is
 *   rebuilt from the lists). So the queue is never left locked, and no message is ever
 *   torn, duplicated or lost once acknowledged. This needs the processes that share a
 *   queue to be in one PID namespace (thread ids must mean the same thread to all).
 *   Blocked waiters are recognised as dead the same way (by their thread ids).
 *   - a send commits when its message is linked into its priority list, before
 *     vigil_mq_send returns 0: an acknowledged message is never lost; a sender killed
 *     before that point sent nothing (the receiver never sees a partial message);
 *   - a receive commits when the message is unlinked from the queue (the copy into the
 *     caller's buffer happens before that, under the lock): a receiver killed after
 *     that point loses the one message it took, as with the kernel's queue; killed
 *     before it, the message stays queued for the next receiver;
 *   - a message handed straight to a blocked receiver (pipelined send) is delivered
 *     when that receiver, having copied it, frees its slot; a receiver killed before
 *     that leaves the message to be put back at the front of its priority.
 *
 * Hostile memory
 *   Any process with write access may scribble on the shared memory. Every index,
 *   length and count read from it is checked before use; a corrupt queue makes the
 *   call fail with EBADMSG (the queue stays corrupt: recreate it), never a crash or a
 *   write outside the mapping. vigil_mq_open of a file that is not a vigil queue of
 *   this layout version (bad magic, version, sizes) fails with EBADMSG too. Two things
 *   a writer can do are not memory errors and are not prevented: holding or faking the
 *   lock (the queue then blocks, as any process holding it would make it), and
 *   truncating the file under a mapping (the kernel then raises SIGBUS on access).
 *   A scribbled notification registration can make a sender signal another process it
 *   is allowed to signal.
 *
 * Notification (vigil_mq_notify)
 *   SIGEV_SIGNAL, SIGEV_THREAD and SIGEV_NONE, one registered process per queue
 *   (another process: EBUSY; NULL removes this process's registration), fired once
 *   when a message arrives on an empty queue with no receiver blocked, then removed.
 *   The registration lives in the shared memory (the registered pid). SIGEV_SIGNAL is
 *   sent by the SENDING process with rt_sigqueueinfo: si_code SI_MESGQ, si_pid and
 *   si_uid of the sender, si_value the registered value. If the sender may not signal
 *   the registered process (another user, not privileged: EPERM) or that process has
 *   died, the notification is silently dropped and the registration removed; the
 *   send itself succeeds. SIGEV_THREAD runs the function in a thread of the registered
 *   process: vigil starts one helper thread per process at the first SIGEV_THREAD
 *   registration, woken by the sender through a futex in the shared memory, and it
 *   calls sigev_notify_function(sigev_value) (sigev_notify_attributes is ignored).
 *   A registration is not inherited by a child after fork (the kernel's neither).
 *
 * Thread safety: all calls are safe from several threads and processes at once.
 * vigil_mq_send/receive are not async-signal-safe: a handler that interrupts a thread
 * holding a queue's lock and calls into the same queue finds the lock held by its own
 * thread and fails with EBADMSG (another thread's handler would wait for the lock).
 *
 * Performance: an uncontended send+receive pair makes no system call; measured figures
 * against the kernel's queues and Boost.Interprocess are in docs/figures.md.
 */
#ifndef VIGIL_MQ_H
#define VIGIL_MQ_H

#include <mqueue.h>
#include <signal.h>
#include <stddef.h>
#include <sys/types.h>
#include <time.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(VIGIL_BUILDING)
#define VIGIL_MQ_EXPORT __attribute__((visibility("default")))
#else
#define VIGIL_MQ_EXPORT
#endif

#define VIGIL_MQ_MAXMSG_MAX (1L << 20)
#define VIGIL_MQ_MSGSIZE_MAX (1L << 24)
#define VIGIL_MQ_BYTES_MAX (1L << 30)
#define VIGIL_MQ_OPEN_MAX 1024
#ifndef MQ_PRIO_MAX
#define MQ_PRIO_MAX 32768
#endif

/* Opens (O_CREAT: creates, with mode_t mode and struct mq_attr *attr as the third and
 * fourth arguments) the queue name. Returns a descriptor or -1 with errno: EINVAL
 * (name, flags, attr), ENAMETOOLONG, EEXIST, ENOENT, EACCES, EMFILE, ENOMEM, ENOSPC,
 * EBADMSG (not a vigil queue, or corrupt). */
VIGIL_MQ_EXPORT mqd_t vigil_mq_open(const char *name, int oflag, ...);

/* Closes a descriptor; as with the kernel, this process's notification registration on
 * the queue (if any) is removed. */
VIGIL_MQ_EXPORT int vigil_mq_close(mqd_t mqdes);

/* Removes the name. ENOENT, EACCES (no write permission on the directory). */
VIGIL_MQ_EXPORT int vigil_mq_unlink(const char *name);

/* Sends msg_len bytes at priority msg_prio. EBADF, EINVAL (priority), EMSGSIZE
 * (msg_len > mq_msgsize), EAGAIN (full, O_NONBLOCK), EINTR, EBADMSG. */
VIGIL_MQ_EXPORT int vigil_mq_send(mqd_t mqdes, const char *msg_ptr, size_t msg_len, unsigned msg_prio);

/* Receives the oldest message of the highest priority. Returns its length. EBADF,
 * EMSGSIZE (msg_len < mq_msgsize, even if the next message would fit), EAGAIN (empty,
 * O_NONBLOCK), EINTR, EBADMSG. msg_prio may be NULL. */
VIGIL_MQ_EXPORT ssize_t vigil_mq_receive(mqd_t mqdes, char *msg_ptr, size_t msg_len, unsigned *msg_prio);

/* As above, giving up at the absolute CLOCK_REALTIME time abs_timeout: ETIMEDOUT.
 * EINVAL first (before EBADF, EMSGSIZE or EAGAIN) if abs_timeout has tv_nsec outside
 * 0..999999999 or a negative tv_sec; NULL blocks without limit. */
VIGIL_MQ_EXPORT int vigil_mq_timedsend(mqd_t mqdes, const char *msg_ptr, size_t msg_len, unsigned msg_prio,
                                       const struct timespec *abs_timeout);
VIGIL_MQ_EXPORT ssize_t vigil_mq_timedreceive(mqd_t mqdes, char *msg_ptr, size_t msg_len, unsigned *msg_prio,
                                              const struct timespec *abs_timeout);

/* Registers (sevp != NULL) or removes (NULL) this process's notification. EBUSY if
 * another process is registered; EINVAL for an unknown sigev_notify or a signal number
 * above 64 (0 is accepted, as by the kernel: the registration fires and is removed,
 * and no signal is sent).
 * See "Notification" above. */
VIGIL_MQ_EXPORT int vigil_mq_notify(mqd_t mqdes, const struct sigevent *sevp);

/* mq_flags is the descriptor's (0 or O_NONBLOCK); mq_maxmsg, mq_msgsize are the
 * queue's; mq_curmsgs is the number queued now. */
VIGIL_MQ_EXPORT int vigil_mq_getattr(mqd_t mqdes, struct mq_attr *attr);

/* Sets the descriptor's O_NONBLOCK from newattr->mq_flags (other fields ignored; other
 * flag bits: EINVAL); the old attributes go to oldattr if not NULL. */
VIGIL_MQ_EXPORT int vigil_mq_setattr(mqd_t mqdes, const struct mq_attr *newattr, struct mq_attr *oldattr);

#ifdef __cplusplus
}
#endif
#endif

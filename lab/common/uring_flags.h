/* The io_uring set-up flags the lab's liburing programs ask for, defined here when
 * Debian's liburing 2.3 headers predate them (the kernel has them since 5.19/6.0/6.1). */
#ifndef LAB_URING_FLAGS_H
#define LAB_URING_FLAGS_H

#include <liburing.h>

#ifndef IORING_SETUP_TASKRUN_FLAG
#define IORING_SETUP_TASKRUN_FLAG (1U << 9)
#endif
#ifndef IORING_SETUP_SINGLE_ISSUER
#define IORING_SETUP_SINGLE_ISSUER (1U << 12)
#endif
#ifndef IORING_SETUP_DEFER_TASKRUN
#define IORING_SETUP_DEFER_TASKRUN (1U << 13)
#endif

#endif

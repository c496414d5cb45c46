/* mq-empty, the kernel's mq_send/mq_receive (a system call each). */
#define MQLAB_CLOCK_CASE 1
#include "mq/sys_kernel.h"
#include "empty.h"

/* mq-lowrate, the kernel's mq_send/mq_receive (a system call each). */
#include "mq/sys_kernel.h"
#include "lowrate.h"

/* mq-lowrate, the hand-written floor: a ring in shared memory and one shared futex
 * (lab/common/mq/sys_futex.h), what any user-space queue pays at the least. */
#include "mq/sys_futex.h"
#include "lowrate.h"

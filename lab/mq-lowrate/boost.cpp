/* mq-lowrate, Boost.Interprocess message_queue. */
#include "mq/sys_boost.h"
#include "lowrate.h"

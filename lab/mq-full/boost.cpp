/* mq-full, Boost.Interprocess message_queue. */
#include "mq/sys_boost.h"
#include "full.h"

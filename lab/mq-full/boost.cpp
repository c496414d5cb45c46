/* mq-full, Boost.Interprocess message_queue. */
#include "sys_boost.h"
#include "full.h"

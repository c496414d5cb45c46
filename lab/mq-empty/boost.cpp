/* mq-empty, Boost.Interprocess message_queue. */
#include "mq/sys_boost.h"
#include "empty.h"

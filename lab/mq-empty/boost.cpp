/* mq-empty, Boost.Interprocess message_queue. */
#include "sys_boost.h"
#include "empty.h"

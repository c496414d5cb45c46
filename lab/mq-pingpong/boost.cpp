/* mq-pingpong, Boost.Interprocess message_queue. */
#include "mq/sys_boost.h"
#include "pingpong.h"

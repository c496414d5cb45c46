/* mq-pingpong, Boost.Interprocess message_queue. */
#include "sys_boost.h"
#include "pingpong.h"

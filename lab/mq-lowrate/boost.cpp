/* mq-lowrate, Boost.Interprocess message_queue. */
#include "sys_boost.h"
#include "lowrate.h"

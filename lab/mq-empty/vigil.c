/* mq-empty, vigil_mq_send/vigil_mq_receive. */
#include "mq/sys_vigil.h"
#include "empty.h"

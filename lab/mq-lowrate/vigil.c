/* mq-lowrate, vigil_mq_send/vigil_mq_receive (default settings, as mq-pingpong). */
#include "mq/sys_vigil.h"
#include "lowrate.h"

/* A handler installed without SA_RESTART that runs while a send or receive waits makes
 * the call fail with EINTR, whatever the phase of the wait (signal_cases.h). */
#define RESTART 0
#include "signal_cases.h"

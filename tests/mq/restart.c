/* A handler installed with SA_RESTART that runs while a send or receive waits leaves the
 * call waiting; it returns the message (or sends) when that comes (signal_cases.h). */
#define RESTART 1
#include "signal_cases.h"

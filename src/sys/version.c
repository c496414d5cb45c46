/* The version of the running library, for programs built against another header. */
#include "vigil.h"

#define STR_(x) #x
#define STR(x) STR_(x)

unsigned vigil_version(void)
{
    return VIGIL_VERSION_HEX;
}

const char *vigil_version_string(void)
{
    return STR(VIGIL_VERSION_MAJOR) "." STR(VIGIL_VERSION_MINOR) "." STR(VIGIL_VERSION_PATCH);
}

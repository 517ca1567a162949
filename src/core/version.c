#include "axibulk/version.h"

/* The string is the build's (compile definition), so a program built against older headers
 * still learns which library it runs with. */
const char *axb_version(void)
{
    return AXB_VERSION_STRING;
}

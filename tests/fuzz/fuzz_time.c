/* libFuzzer target: axb_time_parse (--origin-time, QuakeML <time>) on any string; a parsed time
 * must format and parse back to itself to the microsecond. */
#include <stdlib.h>
#include <string.h>

#include "axibulk/timefmt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (!s) return 0;
    if (size) memcpy(s, data, size);
    s[size] = '\0';
    axb_error err = AXB_ERROR_INIT;
    axb_time_ns t;
    if (axb_time_parse(s, &t, &err) == AXB_OK) {
        char buf[32];
        axb_time_format(t, buf, sizeof buf);
        axb_time_ns back;
        if (axb_time_parse(buf, &back, &err) != AXB_OK || back / 1000 != t / 1000 - (t % 1000 < 0)) abort();
    }
    free(s);
    return 0;
}

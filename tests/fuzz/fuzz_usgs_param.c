/* libFuzzer target: axb_read_usgs_param on any bytes (docs/testing.md, "Fuzz tests"). The slip
 * rates get 1000 samples at 1 s rather than Instaseis' 10000 at 0.1 s: the same 999 s for rise
 * and fall times, so the same inputs pass, at a tenth of the cosines per point (fault_list reads
 * its .param with the defaults). */
#include "axibulk/inputs.h"
#include "fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = axb_fuzz_write(data, size, ".param");
    if (!path) return 0;
    axb_error err = AXB_ERROR_INIT;
    axb_source_list l;
    if (axb_read_usgs_param(path, 1000, 1.0, 1.0, &l, &err) == AXB_OK) axb_source_list_free(&l);
    return 0;
}

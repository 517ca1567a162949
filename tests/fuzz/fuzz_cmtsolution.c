/* libFuzzer target: axb_read_cmtsolution on any bytes (docs/testing.md, "Fuzz tests"). */
#include "axibulk/inputs.h"
#include "fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = axb_fuzz_write(data, size, "");
    if (!path) return 0;
    axb_error err = AXB_ERROR_INIT;
    axb_source_list l;
    if (axb_read_cmtsolution(path, &l, &err) == AXB_OK) axb_source_list_free(&l);
    return 0;
}

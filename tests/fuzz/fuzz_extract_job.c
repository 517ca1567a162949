/* libFuzzer target: axb_job_read (extract job files, a YAML mapping of scalars) on any bytes. */
#include "axibulk/jobfile.h"
#include "fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = axb_fuzz_write(data, size, ".yaml");
    if (!path) return 0;
    axb_error err = AXB_ERROR_INIT;
    axb_job job = {0};
    if (axb_job_read(path, &job, &err) == AXB_OK) axb_job_free(&job);
    return 0;
}

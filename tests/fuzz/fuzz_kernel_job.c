/* libFuzzer target: axb_kernel_job_read on any bytes. Jobs name their source and receiver files;
 * inputs naming special files (/dev/zero ...) are skipped (fuzz_file.h). */
#include "axibulk/kernel_job.h"
#include "fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (axb_fuzz_names_special_file(data, size)) return 0;
    const char *path = axb_fuzz_write(data, size, ".yaml");
    if (!path) return 0;
    axb_error err = AXB_ERROR_INIT;
    axb_kernel_job job;
    if (axb_kernel_job_read(path, &job, &err) == AXB_OK) axb_kernel_job_free(&job);
    return 0;
}

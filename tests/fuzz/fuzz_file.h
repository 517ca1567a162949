/* Shared by the libFuzzer targets: the readers take a path, so each input is written to one
 * temporary file per process (created once, rewritten for every input). */
#ifndef AXB_FUZZ_FILE_H
#define AXB_FUZZ_FILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char axb_fuzz_path[256];

/* Run directly on a file (reproducing a finding), the target leaves no input file behind. */
static inline void axb_fuzz_remove(void)
{
    if (axb_fuzz_path[0]) remove(axb_fuzz_path);
}

/* The path of this process's input file, holding @p data; NULL if it cannot be written (the
 * input is then skipped: a full /tmp is not a reader defect). */
static inline const char *axb_fuzz_write(const uint8_t *data, size_t size, const char *suffix)
{
    char *path = axb_fuzz_path;
    if (!path[0]) {
        const char *tmp = getenv("TMPDIR");
        snprintf(path, sizeof axb_fuzz_path, "%s/axb_fuzz_%ld%s", tmp && *tmp ? tmp : "/tmp", (long)getpid(), suffix);
        atexit(axb_fuzz_remove);
    }
    FILE *f = fopen(path, "wb");
    if (!f) return NULL;
    size_t n = size ? fwrite(data, 1, size, f) : 0;
    if (fclose(f) != 0 || n != size) return NULL;
    return path;
}

/* Files a job or list may name that wait or never end (/dev/stdin, /dev/urandom, /proc/...): the
 * readers refuse NUL bytes and lines over 1 MiB, but a terminal or pipe blocks them as it would
 * any program, so inputs naming such files are skipped rather than hanging the run. */
static inline int axb_fuzz_names_special_file(const uint8_t *data, size_t size)
{
    static const char *const bad[] = {"/dev", "/proc", "/sys", "fd/"};
    for (size_t b = 0; b < sizeof bad / sizeof *bad; b++) {
        size_t n = strlen(bad[b]);
        for (size_t i = 0; i + n <= size; i++)
            if (!memcmp(data + i, bad[b], n)) return 1;
    }
    return 0;
}

#endif

/* core/large_alloc.h: blocks of 2 MiB and more start on a 2 MiB boundary, their whole length is
 * writable and free() releases them; the kernel has them marked for huge pages ("hg" among the
 * VmFlags of the mapping that holds them in /proc/self/smaps, where the kernel has transparent
 * huge pages at all). Small blocks start on a 4 KiB page (O_DIRECT transfers from them). No
 * impossible size is asked for: AddressSanitizer reports one as an error instead of returning
 * NULL, and the sanitizer pass runs this test too. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "core/large_alloc.h"

#define MIB ((size_t)1 << 20)

/* The VmFlags line of the mapping of /proc/self/smaps that contains address @p a; false when the
 * file cannot be read or no mapping holds it. */
static bool vm_flags_of(uintptr_t a, char *flags, size_t cap)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    if (!f) return false;
    char line[256];
    bool inside = false, found = false;
    while (!found && fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' '))
            inside = a >= lo && a < hi;
        else if (inside && !strncmp(line, "VmFlags:", 8)) {
            snprintf(flags, cap, "%s", line + 8);
            found = true;
        }
    }
    fclose(f);
    return found;
}

/* The kernel knows transparent huge pages, and they are not switched off. */
static bool thp_available(void)
{
    FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
    if (!f) return false;
    char s[128] = "";
    const bool ok = fgets(s, sizeof s, f) != NULL && !strstr(s, "[never]");
    fclose(f);
    return ok;
}

int main(void)
{
    check_ctx t = {0};
    const size_t sizes[] = {2 * MIB, 2 * MIB + 12345, 7 * MIB + 1, 64 * MIB};
    const bool thp = thp_available();
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
        const size_t n = sizes[k];
        unsigned char *p = axb_large_alloc(n);
        CHECK_MSG(&t, p != NULL, "%zu bytes", n);
        if (!p) continue;
        CHECK_MSG(&t, (uintptr_t)p % (2 * MIB) == 0, "%zu bytes at %p: not on a 2 MiB boundary", n, (void *)p);
        /* every byte is ours: write a pattern over the whole block and read it back */
        for (size_t i = 0; i < n; i++) p[i] = (unsigned char)(i * 131u + k);
        size_t bad = 0;
        for (size_t i = 0; i < n; i++) bad += p[i] != (unsigned char)(i * 131u + k);
        CHECK_MSG(&t, bad == 0, "%zu of %zu bytes read back wrong", bad, n);
        char flags[512] = "";
        if (thp) {
            CHECK_MSG(&t, vm_flags_of((uintptr_t)p, flags, sizeof flags), "no mapping holds %p", (void *)p);
            CHECK_MSG(&t, strstr(flags, " hg") != NULL, "%zu bytes: VmFlags%s lacks hg", n, flags);
        }
        free(p);
    }
    if (!thp) printf("transparent huge pages off in this kernel: the advice checks were not run\n");
    /* small requests (zero bytes included): page-aligned heap blocks that free() takes */
    for (size_t n = 0; n < 3 * MIB / 2; n = n * 2 + 1) {
        unsigned char *p = axb_large_alloc(n);
        CHECK_MSG(&t, p != NULL, "%zu bytes", n);
        CHECK_MSG(&t, (uintptr_t)p % 4096 == 0, "%zu bytes at %p: not on a page boundary", n, (void *)p);
        if (p && n) memset(p, 0xa5, n);
        free(p);
    }
    return check_summary(&t);
}

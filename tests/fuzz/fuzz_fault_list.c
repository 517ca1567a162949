/* libFuzzer target: axb_read_fault_list on any bytes. The list sits in a private folder next to a
 * small SRF and a small USGS .param file, so entries naming "a.srf" or "b.param" reach the fault
 * readers; inputs naming special files (/dev/zero ...) are skipped (fuzz_file.h). */
#include <stdlib.h>
#include <errno.h>
#include <sys/stat.h>

#include "axibulk/inputs.h"
#include "fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char SRF[] = "2.0\nPOINTS 1\n"
                          "-117.0 34.0 5.0 90 90 1e10 0.5 1.0\n"
                          "180 100 3 0 0 0 0\n"
                          "0 1 0\n";
static const char PARAM[] = "#Total number of fault_segments=     1\n"
                            "#Fault_segment =   1 nx(Along-strike)=  1 Dx= 1.00km ny(downdip)=  1 Dy= 1.00km\n"
                            "#Boundary of Fault_segment     1. EDGE = 1\n"
                            "#Lon.  Lat.  Depth\n"
                            "  0.0 0.0 0.0\n  0.0 0.0 0.0\n  0.0 0.0 0.0\n  0.0 0.0 0.0\n  0.0 0.0 0.0\n"
                            "#Lat. Lon. depth slip rake strike dip t_rup t_ris t_fal mo\n"
                            " 10.0 20.0 5.0 100.0 90.0 10.0 45.0 1.0 2.0 3.0 1e18\n";

static int put(const char *dir, const char *name, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    fputs(text, f);
    return fclose(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char dir[256], list[300];
    if (!dir[0]) {
        const char *tmp = getenv("TMPDIR");
        snprintf(dir, sizeof dir, "%s/axb_fuzz_faults_%ld", tmp && *tmp ? tmp : "/tmp", (long)getpid());
        if ((mkdir(dir, 0700) && errno != EEXIST) || put(dir, "a.srf", SRF) || put(dir, "b.param", PARAM)) abort();
        snprintf(list, sizeof list, "%s/list.txt", dir);
    }
    if (axb_fuzz_names_special_file(data, size)) return 0;
    FILE *f = fopen(list, "wb");
    if (!f) return 0;
    size_t n = size ? fwrite(data, 1, size, f) : 0;
    if (fclose(f) != 0 || n != size) return 0;
    axb_error err = AXB_ERROR_INIT;
    axb_fault_list l;
    if (axb_read_fault_list(list, &l, &err) == AXB_OK) axb_fault_list_free(&l);
    return 0;
}

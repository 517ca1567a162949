/* mkfixture DIR KIND: writes a synthetic database (tests/support/minidb.c) for shell tests.
 * KIND: bwd, pz, px, fwd, merged, merged-fwd, contiguous, strain, transposed. */
#include <hdf5.h>
#include <stdio.h>
#include <string.h>

#include "minidb.h"

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: mkfixture DIR KIND\n");
        return 2;
    }
    const char *k = argv[2];
    minidb_opts o = {0};
    if (!strcmp(k, "bwd"))
        o.px = o.pz = true;
    else if (!strcmp(k, "pz"))
        o.pz = true;
    else if (!strcmp(k, "px"))
        o.px = true;
    else if (!strcmp(k, "fwd"))
        o.forward = true;
    else if (!strcmp(k, "merged"))
        o.px = o.pz = o.merged = true;
    else if (!strcmp(k, "merged-fwd"))
        o.forward = o.merged = true;
    else if (!strcmp(k, "contiguous"))
        o.px = o.pz = o.merged = o.contiguous = true;
    else if (!strcmp(k, "strain"))
        o.px = o.pz = o.strain = true;
    else if (!strcmp(k, "transposed"))
        o.px = o.pz = o.transposed = true;
    else {
        fprintf(stderr, "mkfixture: unknown kind '%s'\n", k);
        return 2;
    }
    return minidb_write(argv[1], &o) ? 1 : 0;
}

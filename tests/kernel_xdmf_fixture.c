/* Writes the kernel fixtures (tests/support/kernel_fixture.c) with axb_kernel_output_write into
 * DIR, each as NAME.h5 + NAME.xdmf, with NAME.expect listing what a reader must find in them
 * (tet: tetrahedra per cell, tetv: per vertex, vox: voxels). Used by kernel_xdmf_test.sh, which
 * has ParaView read them. */
#include <hdf5.h>
#include <stdio.h>

#include "support/kernel_fixture.h"

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s DIR\n", argv[0]);
        return 2;
    }
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    static const kfix_kind kinds[3] = {KFIX_TET_CELLS, KFIX_TET_VERTICES, KFIX_VOXELS};
    static const char *const names[3] = {"tet", "tetv", "vox"};
    for (int k = 0; k < 3; k++) {
        kfix fx;
        char h5[4096], xdmf[4096], expect[4096];
        snprintf(h5, sizeof h5, "%.4000s/%s.h5", argv[1], names[k]);
        snprintf(xdmf, sizeof xdmf, "%.4000s/%s.xdmf", argv[1], names[k]);
        snprintf(expect, sizeof expect, "%.4000s/%s.expect", argv[1], names[k]);
        axb_error err = AXB_ERROR_INIT;
        if (kfix_make(&fx, kinds[k]) != 0) {
            fprintf(stderr, "%s: cannot build the fixture\n", names[k]);
            kfix_free(&fx);
            return 1;
        }
        int rc = 0;
        if (axb_kernel_output_write(h5, xdmf, &fx.job, &fx.res, true, &err) != AXB_OK) {
            fprintf(stderr, "%s\n", err.msg);
            rc = 1;
        }
        FILE *f = rc ? NULL : fopen(expect, "w");
        if (!rc && (!f || kfix_write_expected(&fx, f) != 0)) rc = 1;
        if (f && fclose(f) != 0) rc = 1;
        kfix_free(&fx);
        if (rc) return rc;
    }
    return 0;
}

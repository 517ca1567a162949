/* Small kernel results with known values for the kernel output writer's tests (the HDF5 read-back
 * in tests/unit/test_kernel_output.c and ParaView's reading in tests/kernel_xdmf_test.sh): a job
 * with two kernels on two receivers, and a result on a tetrahedral mesh (per cell or per vertex)
 * or on a voxel grid. Values are irregular doubles (all 53 bits used), so an exact comparison
 * would notice any conversion on the way. Test support only: not part of the library. */
#ifndef AXB_TESTS_KERNEL_FIXTURE_H
#define AXB_TESTS_KERNEL_FIXTURE_H

#include <stdbool.h>
#include <stdio.h>

#include "axibulk/kernel_output.h"

typedef enum kfix_kind { KFIX_TET_CELLS, KFIX_TET_VERTICES, KFIX_VOXELS } kfix_kind;

typedef struct kfix {
    axb_kernel_job job;
    axb_receiver rec[2];
    axb_kernel_def def[2];
    axb_invmesh mesh;
    axb_kernel_column col[3];
    axb_kernel_result res;
} kfix;

/* Fills @p f (kernels "P30" (CC; vp, vs; relative) and "S40_am" (AM; rho)). 0 on success. */
int kfix_make(kfix *f, kfix_kind kind);
void kfix_free(kfix *f);

/* Writes what a reader of the XDMF file must find, one item per line, numbers with 17 digits:
 *   cells N / vertices N / cell_type 10|12 (VTK) / xyz x y z ... / connectivity i ... /
 *   cell|node NAME v0 v1 ...   (every kernel, error, points and volume array) */
int kfix_write_expected(const kfix *f, FILE *out);

#endif

/* Interposed MPI, HDF5 and netCDF calls for fault injection (fault_inject.h). Compiled into the
 * test executable itself, whose exported definitions take precedence over the libraries' for
 * every call made through the dynamic linker, libaxibulk's included. */
#define _GNU_SOURCE
#include "fault_inject.h"

#include <dlfcn.h>
#include <link.h>
#include <hdf5.h>
#include <mpi.h>
#include <netcdf.h>
#include <netcdf_par.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "axibulk/status.h"
#include "core/agree.h"

/* test-program state: the library under test never sees it */
static atomic_long fault_target;
static atomic_long fault_count;
static _Atomic(const char *) fault_name;

void fault_arm(long n)
{
    atomic_store(&fault_count, 0);
    atomic_store(&fault_name, NULL);
    atomic_store(&fault_target, n);
}

long fault_calls(void)
{
    return atomic_load(&fault_count);
}

const char *fault_fired(void)
{
    return atomic_load(&fault_name);
}

/* libaxibulk's loaded segments, found once: a range test per call instead of a symbol lookup */
typedef struct lib_range {
    uintptr_t lo, hi;
} lib_range;

static int find_range(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    lib_range *r = data;
    const uintptr_t want = (uintptr_t)&axb_agree;
    uintptr_t lo = UINTPTR_MAX, hi = 0;
    for (int k = 0; k < info->dlpi_phnum; k++) {
        if (info->dlpi_phdr[k].p_type != PT_LOAD) continue;
        const uintptr_t a = info->dlpi_addr + info->dlpi_phdr[k].p_vaddr;
        if (a < lo) lo = a;
        if (a + info->dlpi_phdr[k].p_memsz > hi) hi = a + info->dlpi_phdr[k].p_memsz;
    }
    if (want < lo || want >= hi) return 0;
    r->lo = lo;
    r->hi = hi;
    return 1;
}

static atomic_uintptr_t lib_lo, lib_hi;

/* True when @p caller (a return address) lies in libaxibulk; for MPI calls (@p mpi), also outside
 * the agreement. */
static bool from_axibulk(const void *caller, bool mpi)
{
    if (!atomic_load(&lib_hi)) {
        lib_range r = {0, 0};
        dl_iterate_phdr(find_range, &r);
        atomic_store(&lib_lo, r.lo);
        atomic_store(&lib_hi, r.hi);
    }
    const uintptr_t a = (uintptr_t)caller;
    if (a < atomic_load(&lib_lo) || a >= atomic_load(&lib_hi)) return false;
    if (!mpi) return true;
    Dl_info who;
    return dladdr(caller, &who) && !(who.dli_sname && !strncmp(who.dli_sname, "axb_agree", 9));
}

/* Counts a call of libaxibulk's; true when it is the one to fail. */
static bool hit(const void *caller, const char *name)
{
    if (!from_axibulk(caller, name[0] == 'M')) return false;
    const long n = atomic_fetch_add(&fault_count, 1) + 1;
    if (n != atomic_load(&fault_target)) return false;
    atomic_store(&fault_name, name);
    return true;
}

#define CALLER __builtin_return_address(0)
#define REAL(type, name) ((type)(uintptr_t)dlsym(RTLD_NEXT, #name))

/* ---- MPI: the profiling interface runs the real call ---- */

int MPI_Allreduce(const void *s, void *r, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c)
{
    int rc = PMPI_Allreduce(s, r, n, t, op, c);
    return hit(CALLER, "MPI_Allreduce") ? MPI_ERR_OTHER : rc;
}

int MPI_Bcast(void *b, int n, MPI_Datatype t, int root, MPI_Comm c)
{
    int rc = PMPI_Bcast(b, n, t, root, c);
    return hit(CALLER, "MPI_Bcast") ? MPI_ERR_OTHER : rc;
}

int MPI_Gather(const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt, int root, MPI_Comm c)
{
    int rc = PMPI_Gather(s, sn, st, r, rn, rt, root, c);
    return hit(CALLER, "MPI_Gather") ? MPI_ERR_OTHER : rc;
}

int MPI_Gatherv(const void *s, int sn, MPI_Datatype st, void *r, const int rn[], const int d[], MPI_Datatype rt,
                int root, MPI_Comm c)
{
    int rc = PMPI_Gatherv(s, sn, st, r, rn, d, rt, root, c);
    return hit(CALLER, "MPI_Gatherv") ? MPI_ERR_OTHER : rc;
}

int MPI_Allgather(const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt, MPI_Comm c)
{
    int rc = PMPI_Allgather(s, sn, st, r, rn, rt, c);
    return hit(CALLER, "MPI_Allgather") ? MPI_ERR_OTHER : rc;
}

int MPI_Reduce(const void *s, void *r, int n, MPI_Datatype t, MPI_Op op, int root, MPI_Comm c)
{
    int rc = PMPI_Reduce(s, r, n, t, op, root, c);
    return hit(CALLER, "MPI_Reduce") ? MPI_ERR_OTHER : rc;
}

int MPI_Exscan(const void *s, void *r, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c)
{
    int rc = PMPI_Exscan(s, r, n, t, op, c);
    return hit(CALLER, "MPI_Exscan") ? MPI_ERR_OTHER : rc;
}

int MPI_Barrier(MPI_Comm c)
{
    int rc = PMPI_Barrier(c);
    return hit(CALLER, "MPI_Barrier") ? MPI_ERR_OTHER : rc;
}

int MPI_Alltoall(const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt, MPI_Comm c)
{
    int rc = PMPI_Alltoall(s, sn, st, r, rn, rt, c);
    return hit(CALLER, "MPI_Alltoall") ? MPI_ERR_OTHER : rc;
}

int MPI_Alltoallv(const void *s, const int sn[], const int sd[], MPI_Datatype st, void *r, const int rn[],
                  const int rd[], MPI_Datatype rt, MPI_Comm c)
{
    int rc = PMPI_Alltoallv(s, sn, sd, st, r, rn, rd, rt, c);
    return hit(CALLER, "MPI_Alltoallv") ? MPI_ERR_OTHER : rc;
}

int MPI_Send(const void *b, int n, MPI_Datatype t, int dest, int tag, MPI_Comm c)
{
    int rc = PMPI_Send(b, n, t, dest, tag, c);
    return hit(CALLER, "MPI_Send") ? MPI_ERR_OTHER : rc;
}

int MPI_Recv(void *b, int n, MPI_Datatype t, int src, int tag, MPI_Comm c, MPI_Status *status)
{
    int rc = PMPI_Recv(b, n, t, src, tag, c, status);
    return hit(CALLER, "MPI_Recv") ? MPI_ERR_OTHER : rc;
}

int MPI_File_write_at(MPI_File fh, MPI_Offset off, const void *b, int n, MPI_Datatype t, MPI_Status *status)
{
    int rc = PMPI_File_write_at(fh, off, b, n, t, status);
    return hit(CALLER, "MPI_File_write_at") ? MPI_ERR_OTHER : rc;
}

/* ---- HDF5: status calls fail after running; a created or opened object is closed again, so
 * the failure leaves nothing open that the caller does not know of ---- */

#define H5_STATUS(name, params, args)                                                                                  \
    herr_t name params                                                                                                 \
    {                                                                                                                  \
        herr_t rc = REAL(herr_t(*) params, name) args;                                                                 \
        return hit(CALLER, #name) ? -1 : rc;                                                                           \
    }

H5_STATUS(H5Dwrite, (hid_t d, hid_t m, hid_t ms, hid_t fs, hid_t p, const void *b), (d, m, ms, fs, p, b))
H5_STATUS(H5Dread, (hid_t d, hid_t m, hid_t ms, hid_t fs, hid_t p, void *b), (d, m, ms, fs, p, b))
H5_STATUS(H5Dwrite_chunk, (hid_t d, hid_t p, uint32_t f, const hsize_t *o, size_t n, const void *b), (d, p, f, o, n, b))
H5_STATUS(H5Awrite, (hid_t a, hid_t t, const void *b), (a, t, b))
H5_STATUS(H5Fflush, (hid_t o, H5F_scope_t s), (o, s))
H5_STATUS(H5Dclose, (hid_t d), (d))
H5_STATUS(H5Gclose, (hid_t g), (g))
H5_STATUS(H5Aclose, (hid_t a), (a))
H5_STATUS(H5Fclose, (hid_t f), (f))

#define H5_OBJECT(name, close, params, args)                                                                           \
    hid_t name params                                                                                                  \
    {                                                                                                                  \
        hid_t id = REAL(hid_t(*) params, name) args;                                                                   \
        if (!hit(CALLER, #name)) return id;                                                                            \
        if (id >= 0) REAL(herr_t (*)(hid_t), close)(id);                                                               \
        return -1;                                                                                                     \
    }

H5_OBJECT(H5Dcreate2, H5Dclose, (hid_t l, const char *n, hid_t t, hid_t s, hid_t lc, hid_t dc, hid_t da),
          (l, n, t, s, lc, dc, da))
H5_OBJECT(H5Dopen2, H5Dclose, (hid_t l, const char *n, hid_t da), (l, n, da))
H5_OBJECT(H5Gcreate2, H5Gclose, (hid_t l, const char *n, hid_t lc, hid_t gc, hid_t ga), (l, n, lc, gc, ga))
H5_OBJECT(H5Acreate2, H5Aclose, (hid_t l, const char *n, hid_t t, hid_t s, hid_t ac, hid_t aa), (l, n, t, s, ac, aa))
H5_OBJECT(H5Aopen, H5Aclose, (hid_t o, const char *n, hid_t aa), (o, n, aa))

/* ---- netCDF ---- */

#define NC_CALL(name, params, args)                                                                                    \
    int name params                                                                                                    \
    {                                                                                                                  \
        int rc = REAL(int(*) params, name) args;                                                                       \
        return hit(CALLER, #name) ? NC_EHDFERR : rc;                                                                   \
    }

NC_CALL(nc_def_dim, (int nc, const char *n, size_t len, int *id), (nc, n, len, id))
NC_CALL(nc_def_var, (int nc, const char *n, nc_type t, int nd, const int *dims, int *id), (nc, n, t, nd, dims, id))
NC_CALL(nc_def_var_chunking, (int nc, int v, int s, const size_t *c), (nc, v, s, c))
NC_CALL(nc_def_var_fill, (int nc, int v, int no, const void *f), (nc, v, no, f))
NC_CALL(nc_def_var_deflate, (int nc, int v, int sh, int de, int lev), (nc, v, sh, de, lev))
NC_CALL(nc_def_var_fletcher32, (int nc, int v, int f), (nc, v, f))
NC_CALL(nc_def_grp, (int nc, const char *n, int *id), (nc, n, id))
NC_CALL(nc_var_par_access, (int nc, int v, int a), (nc, v, a))
NC_CALL(nc_enddef, (int nc), (nc))
NC_CALL(nc_put_var, (int nc, int v, const void *b), (nc, v, b))
NC_CALL(nc_put_var_float, (int nc, int v, const float *b), (nc, v, b))
NC_CALL(nc_put_var_int, (int nc, int v, const int *b), (nc, v, b))
NC_CALL(nc_put_var_double, (int nc, int v, const double *b), (nc, v, b))
NC_CALL(nc_put_vara_float, (int nc, int v, const size_t *s, const size_t *c, const float *b), (nc, v, s, c, b))
NC_CALL(nc_put_att_text, (int nc, int v, const char *n, size_t len, const char *b), (nc, v, n, len, b))
NC_CALL(nc_put_att_int, (int nc, int v, const char *n, nc_type t, size_t len, const int *b), (nc, v, n, t, len, b))
NC_CALL(nc_put_att_float, (int nc, int v, const char *n, nc_type t, size_t len, const float *b), (nc, v, n, t, len, b))
NC_CALL(nc_put_att_double, (int nc, int v, const char *n, nc_type t, size_t len, const double *b),
        (nc, v, n, t, len, b))
NC_CALL(nc_copy_att, (int nc, int v, const char *n, int out, int vout), (nc, v, n, out, vout))
NC_CALL(nc_sync, (int nc), (nc))
NC_CALL(nc_close, (int nc), (nc))

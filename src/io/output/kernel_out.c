/* The kernel job's output (kernel_output.h): one HDF5 file written serially on one rank, and an
 * XDMF description beside it so ParaView opens the kernels as they are. Both appear only by rename
 * once complete. Layout: docs/output-format.md, "Kernel files". */
#include "axibulk/kernel_output.h"

#include <errno.h>
#include <fcntl.h>
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "axibulk/version.h"
#include "core/partial.h"
#include "core/paths.h"
#include "io/hdf5/h5util.h"
#include "io/output/out_internal.h"

#define KOUT_FORMAT "axibulk-kernels"
#define KOUT_FORMAT_VERSION "1.0"
#define KOUT_NAME_MAX 128 /* a column name (95 characters) with "_error" or "_velocity" */

static bool path_exists(const char *p)
{
    struct stat sb;
    return lstat(p, &sb) == 0;
}

/* Values are ∫ K δp/p dV per item (relative) or ∫ K δp dV (absolute), so their unit is the
 * misfit's over the parameter's; eta has no unit, so its absolute kernel is its relative one. */
static const char *kernel_units(axb_misfit misfit, axb_kparam p, bool absolute)
{
    const bool cc = misfit == AXB_MISFIT_CC;
    if (!absolute || p == AXB_KP_ETA) return cc ? "s" : "1";
    switch (p) {
    case AXB_KP_RHO: return cc ? "s/(kg/m^3)" : "1/(kg/m^3)";
    case AXB_KP_LAMBDA:
    case AXB_KP_MU: return cc ? "s/Pa" : "1/Pa";
    default: return cc ? "s/(m/s)" : "1/(m/s)";
    }
}

static const char *misfit_name(axb_misfit m)
{
    return m == AXB_MISFIT_AM ? "am" : "cc";
}

/* Readable and complete enough to redo the filter: kind, corners, order, phase. */
static void filter_text(const axb_filter_spec *f, char *buf, size_t n)
{
    const char *phase = f->zerophase ? "zerophase" : "causal";
    const char *bilinear = f->bilinear ? " bilinear" : "";
    switch (f->kind) {
    case AXB_FILTER_LOWPASS:
        snprintf(buf, n, "lowpass %.10g Hz order %d %s%s", f->f1, f->order, phase, bilinear);
        break;
    case AXB_FILTER_HIGHPASS:
        snprintf(buf, n, "highpass %.10g Hz order %d %s%s", f->f1, f->order, phase, bilinear);
        break;
    case AXB_FILTER_BANDPASS:
        snprintf(buf, n, "bandpass %.10g-%.10g Hz order %d %s%s", f->f1, f->f2, f->order, phase, bilinear);
        break;
    case AXB_FILTER_LOGGABOR: snprintf(buf, n, "loggabor T=%.10g s width %.10g", f->period, f->width); break;
    default: snprintf(buf, n, "unknown filter kind %d", (int)f->kind); break;
    }
}

/* Names become HDF5 link names and XDMF "file:/path" references: a '/' would make a group and a
 * ':' would split the reference. */
static axb_status check_name(const char *what, const char *name, axb_error *err)
{
    AXB_CHECK(err, name[0] != '\0', AXB_ERR_ARG, "kernel output: %s has an empty name", what);
    AXB_CHECK(err, strcmp(name, ".") != 0 && strcmp(name, "..") != 0, AXB_ERR_ARG,
              "kernel output: %s name '%s' is not allowed", what, name);
    for (const char *c = name; *c; c++)
        AXB_CHECK(err, *c != '/' && *c != ':' && (unsigned char)*c >= 0x20 && *c != 0x7f, AXB_ERR_ARG,
                  "kernel output: %s name '%s' contains '/', ':' or a control character", what, name);
    return AXB_OK;
}

/* Every name in one namespace (HDF5 group or XDMF attribute list) must be distinct. */
static axb_status check_unique(const char *space, int n, const char (*names)[KOUT_NAME_MAX], axb_error *err)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < i; j++)
            AXB_CHECK(err, strcmp(names[i], names[j]) != 0, AXB_ERR_ARG, "kernel output: two %s are named '%s'", space,
                      names[i]);
    return AXB_OK;
}

static axb_status check_names(const axb_kernel_job *job, const axb_kernel_result *res, axb_error *err)
{
    const int nc = res->ncolumns, nk = res->nkernels;
    /* XDMF attributes: columns, their errors, points, volume; seismograms: kernels and velocities */
    const int nx = 2 * nc + 2, ns = 2 * nk, nmax = nx > ns ? nx : ns;
    char(*names)[KOUT_NAME_MAX] = calloc((size_t)nmax, sizeof *names);
    AXB_CHECK(err, names, AXB_ERR_NOMEM, "kernel output: no memory for %d names", nmax);
    axb_status st = AXB_OK;
    for (int c = 0; c < nc && st == AXB_OK; c++) {
        st = check_name("kernel column", res->columns[c].name, err);
        snprintf(names[2 * c], KOUT_NAME_MAX, "%s", res->columns[c].name);
        snprintf(names[2 * c + 1], KOUT_NAME_MAX, "%s_error", res->columns[c].name);
    }
    snprintf(names[nx - 2], KOUT_NAME_MAX, "points");
    snprintf(names[nx - 1], KOUT_NAME_MAX, "volume");
    if (st == AXB_OK) st = check_unique("kernel columns or error columns", nx, names, err);
    for (int k = 0; k < nk && st == AXB_OK; k++) {
        st = check_name("kernel", job->kernels[k].name, err);
        snprintf(names[2 * k], KOUT_NAME_MAX, "%s", job->kernels[k].name);
        snprintf(names[2 * k + 1], KOUT_NAME_MAX, "%s_velocity", job->kernels[k].name);
    }
    if (st == AXB_OK) st = check_unique("seismograms", ns, names, err);
    free(names);
    return st;
}

/* The result must be complete and agree with the job: a mismatch is the engine's bug, but it is
 * reported rather than written into a file that looks valid. */
static axb_status check_result(const axb_kernel_job *job, const axb_kernel_result *res, axb_error *err)
{
    AXB_CHECK(err, job && res && res->mesh, AXB_ERR_ARG, "kernel output: no job, result or mesh given");
    const axb_invmesh *m = res->mesh;
    AXB_CHECK(err, m->type == AXB_CELL_TET || m->type == AXB_CELL_VOXEL, AXB_ERR_ARG,
              "kernel output: unknown cell type %d", (int)m->type);
    AXB_CHECK(err, m->ncell > 0 && m->nvert > 0 && m->vert && m->cell, AXB_ERR_ARG,
              "kernel output: the mesh has no cells or no vertices");
    AXB_CHECK(err, res->ncolumns > 0 && res->columns && res->value && res->error && res->integral, AXB_ERR_ARG,
              "kernel output: the result has no kernel columns");
    AXB_CHECK(err, res->npoints && res->volume, AXB_ERR_ARG, "kernel output: the result has no points or volumes");
    AXB_CHECK(err, res->nkernels == job->nkernels && job->nkernels > 0 && job->kernels, AXB_ERR_ARG,
              "kernel output: the result has %d kernels, the job %d", res->nkernels, job->nkernels);
    AXB_CHECK(err, res->seis_npts >= 0 && (res->seis_npts == 0 || (res->seismogram && res->velocity)), AXB_ERR_ARG,
              "kernel output: the result has no reference seismograms");
    for (int c = 0; c < res->ncolumns; c++) {
        const axb_kernel_column *col = &res->columns[c];
        AXB_CHECK(err, col->kernel >= 0 && col->kernel < job->nkernels, AXB_ERR_ARG,
                  "kernel output: column '%s' refers to kernel %d of %d", col->name, col->kernel, job->nkernels);
        AXB_CHECK(err, col->param >= 0 && col->param < AXB_KP_COUNT, AXB_ERR_ARG,
                  "kernel output: column '%s' has unknown parameter %d", col->name, (int)col->param);
    }
    for (int k = 0; k < job->nkernels; k++)
        AXB_CHECK(err, job->kernels[k].receiver >= 0 && job->kernels[k].receiver < job->nreceivers && job->receivers,
                  AXB_ERR_ARG, "kernel output: kernel '%s' refers to receiver %lld of %lld", job->kernels[k].name,
                  (long long)job->kernels[k].receiver, (long long)job->nreceivers);
    return check_names(job, res, err);
}

/* ---- HDF5 ---- */

static axb_status attr_doubles(hid_t loc, const char *name, int n, const double *v, axb_error *err)
{
    const hsize_t dims[1] = {(hsize_t)n};
    hid_t space = H5Screate_simple(1, dims, NULL);
    hid_t a = space >= 0 ? H5Acreate2(loc, name, H5T_IEEE_F64LE, space, H5P_DEFAULT, H5P_DEFAULT) : -1;
    herr_t rc = a >= 0 ? H5Awrite(a, H5T_NATIVE_DOUBLE, v) : -1;
    axb_status st = rc < 0 ? axb_h5_error(err, "cannot write attribute '%s'", name) : AXB_OK;
    if (a >= 0) H5Aclose(a);
    if (space >= 0) H5Sclose(space);
    return st;
}

/* Creates dataset @p name under @p loc and writes all of @p buf; *dset stays open for attributes. */
static axb_status put_dataset(hid_t loc, const char *name, hid_t ftype, hid_t mtype, int rank, const hsize_t *dims,
                              const void *buf, hid_t *dset, axb_error *err)
{
    AXB_TRY(axb_h5out_dataset(loc, name, ftype, rank, dims, dset, err));
    hsize_t total = 1;
    for (int i = 0; i < rank; i++) total *= dims[i];
    if (total > 0 && H5Dwrite(*dset, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0) {
        axb_status st = axb_h5_error(err, "cannot write dataset '%s'", name);
        H5Dclose(*dset);
        *dset = H5I_INVALID_HID;
        return st;
    }
    return AXB_OK;
}

/* Closes @p id whatever @p st is and returns the first failure. */
static axb_status close_obj(hid_t id, axb_status st, const char *what, axb_error *err)
{
    if (id >= 0 && H5Oclose(id) < 0 && st == AXB_OK) st = axb_h5_error(err, "cannot close '%s'", what);
    return st;
}

static axb_status write_root_attrs(hid_t f, const axb_kernel_job *job, const axb_kernel_result *res, axb_error *err)
{
    static const char *const stf_names[] = {"database", "deconvolve"};
    static const char *const point_names[] = {"halton", "sobol"};
    AXB_TRY(axb_h5out_attr_str(f, "file_format", KOUT_FORMAT, err));
    AXB_TRY(axb_h5out_attr_str(f, "file_format_version", KOUT_FORMAT_VERSION, err));
    AXB_TRY(axb_h5out_attr_str(f, "axibulk_version", axb_version(), err));
    AXB_TRY(axb_h5out_attr_str(f, "forward_db", res->fwd_db ? res->fwd_db : job->fwd_db, err));
    AXB_TRY(axb_h5out_attr_str(f, "backward_db", res->bwd_db ? res->bwd_db : job->bwd_db, err));
    AXB_TRY(axb_h5out_attr_str(f, "values", res->per_vertex ? "vertices" : "cells", err));
    AXB_TRY(axb_h5out_attr_int64(f, "relative", !job->absolute, err));
    AXB_TRY(axb_h5out_attr_str(f, "stf", stf_names[job->stf == AXB_KSTF_DECONVOLVE], err));
    AXB_TRY(axb_h5out_attr_str(f, "points", point_names[job->points == AXB_KPOINTS_SOBOL], err));
    AXB_TRY(axb_h5out_attr_int64(f, "points_per_step", job->points_per_step, err));
    AXB_TRY(axb_h5out_attr_int64(f, "max_points", job->max_points, err));
    AXB_TRY(axb_h5out_attr_int64(f, "min_points", job->min_points, err));
    AXB_TRY(axb_h5out_attr_double(f, "abs_error", job->abs_error, err));
    AXB_TRY(axb_h5out_attr_double(f, "rel_error", job->rel_error, err));
    AXB_TRY(axb_h5out_attr_int64(f, "mask_source_receiver", job->mask_source_receiver, err));
    AXB_TRY(axb_h5out_attr_double(f, "damp_radius", job->damp_radius, err));
    AXB_TRY(axb_h5out_attr_double(f, "event_lat", job->event.lat, err));
    AXB_TRY(axb_h5out_attr_double(f, "event_lon", job->event.lon, err));
    AXB_TRY(axb_h5out_attr_double(f, "event_depth", job->event.depth, err));
    AXB_TRY(axb_h5out_attr_double(f, "source_depth", res->source_depth, err));
    AXB_TRY(attr_doubles(f, "moment_tensor", 6, job->event.m, err));
    AXB_TRY(axb_h5out_attr_int64(f, "ranks", res->nranks, err));
    return axb_h5out_attr_double(f, "seconds", res->seconds, err);
}

static axb_status write_mesh(hid_t f, const axb_kernel_result *res, axb_error *err)
{
    const axb_invmesh *m = res->mesh;
    hid_t g = H5Gcreate2(f, "mesh", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (g < 0) return axb_h5_error(err, "cannot create group 'mesh'");
    axb_status st = axb_h5out_attr_str(g, "cell_type", m->type == AXB_CELL_TET ? "tetrahedron" : "hexahedron", err);
    hid_t d = H5I_INVALID_HID;
    const hsize_t vdims[2] = {(hsize_t)m->nvert, 3}, cdims[2] = {(hsize_t)m->ncell, (hsize_t)axb_cell_nvert(m->type)};
    const hsize_t ndims[1] = {(hsize_t)m->ncell};
    if (st == AXB_OK) st = put_dataset(g, "vertices", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 2, vdims, m->vert, &d, err);
    if (st == AXB_OK) st = axb_h5out_attr_str(d, "units", "m", err);
    st = close_obj(d, st, "mesh/vertices", err);
    d = H5I_INVALID_HID;
    if (st == AXB_OK) st = put_dataset(g, "cells", H5T_STD_I64LE, H5T_NATIVE_INT64, 2, cdims, m->cell, &d, err);
    st = close_obj(d, st, "mesh/cells", err);
    d = H5I_INVALID_HID;
    if (st == AXB_OK) st = put_dataset(g, "volume", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 1, ndims, res->volume, &d, err);
    if (st == AXB_OK) st = axb_h5out_attr_str(d, "units", "m^3", err);
    st = close_obj(d, st, "mesh/volume", err);
    d = H5I_INVALID_HID;
    if (st == AXB_OK) st = put_dataset(g, "points", H5T_STD_I64LE, H5T_NATIVE_INT64, 1, ndims, res->npoints, &d, err);
    st = close_obj(d, st, "mesh/points", err);
    return close_obj(g, st, "mesh", err);
}

static axb_status column_attrs(hid_t d, const axb_kernel_job *job, const axb_kernel_result *res, int c, bool value,
                               axb_error *err)
{
    const axb_kernel_column *col = &res->columns[c];
    const axb_kernel_def *k = &job->kernels[col->kernel];
    AXB_TRY(axb_h5out_attr_str(d, "kernel", k->name, err));
    AXB_TRY(axb_h5out_attr_str(d, "parameter", axb_kparam_name(col->param), err));
    AXB_TRY(axb_h5out_attr_str(d, "units", kernel_units(k->misfit, col->param, job->absolute), err));
    AXB_TRY(axb_h5out_attr_str(d, "misfit", misfit_name(k->misfit), err));
    AXB_TRY(axb_h5out_attr_int64(d, "relative", !job->absolute, err));
    if (value) AXB_TRY(axb_h5out_attr_double(d, "integral", res->integral[c], err));
    return AXB_OK;
}

/* /kernels and /errors: one dataset per column, in the order of the columns. */
static axb_status write_columns(hid_t f, const axb_kernel_job *job, const axb_kernel_result *res, bool value,
                                axb_error *err)
{
    const char *group = value ? "kernels" : "errors";
    const int64_t nitems = res->per_vertex ? res->mesh->nvert : res->mesh->ncell;
    const double *data = value ? res->value : res->error;
    hid_t g = H5Gcreate2(f, group, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (g < 0) return axb_h5_error(err, "cannot create group '%s'", group);
    axb_status st = AXB_OK;
    const hsize_t dims[1] = {(hsize_t)nitems};
    for (int c = 0; c < res->ncolumns && st == AXB_OK; c++) {
        hid_t d = H5I_INVALID_HID;
        st = put_dataset(g, res->columns[c].name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 1, dims, data + c * nitems, &d,
                         err);
        if (st == AXB_OK) st = column_attrs(d, job, res, c, value, err);
        st = close_obj(d, st, res->columns[c].name, err);
        if (st != AXB_OK) axb_error_prefix(err, "%s", group);
    }
    return close_obj(g, st, group, err);
}

static axb_status seismogram_attrs(hid_t d, const axb_kernel_job *job, const axb_kernel_def *k, const char *quantity,
                                   double dt, axb_error *err)
{
    const axb_receiver *r = &job->receivers[k->receiver];
    char text[256];
    AXB_TRY(axb_h5out_attr_str(d, "quantity", quantity, err));
    AXB_TRY(axb_h5out_attr_double(d, "dt", dt, err));
    AXB_TRY(axb_h5out_attr_double(d, "t1", k->t1, err));
    AXB_TRY(axb_h5out_attr_double(d, "t2", k->t2, err));
    snprintf(text, sizeof text, "%c", k->component);
    AXB_TRY(axb_h5out_attr_str(d, "component", text, err));
    snprintf(text, sizeof text, "%.8s.%.8s.%.8s", r->network, r->station, r->location);
    AXB_TRY(axb_h5out_attr_str(d, "receiver", text, err));
    AXB_TRY(axb_h5out_attr_double(d, "receiver_lat", r->lat, err));
    AXB_TRY(axb_h5out_attr_double(d, "receiver_lon", r->lon, err));
    AXB_TRY(axb_h5out_attr_double(d, "receiver_depth", r->depth, err));
    filter_text(&k->filter, text, sizeof text);
    AXB_TRY(axb_h5out_attr_str(d, "filter", text, err));
    return axb_h5out_attr_str(d, "misfit", misfit_name(k->misfit), err);
}

static axb_status write_seismograms(hid_t f, const axb_kernel_job *job, const axb_kernel_result *res, axb_error *err)
{
    hid_t g = H5Gcreate2(f, "seismograms", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (g < 0) return axb_h5_error(err, "cannot create group 'seismograms'");
    axb_status st = AXB_OK;
    const hsize_t dims[1] = {(hsize_t)res->seis_npts};
    for (int k = 0; k < res->nkernels && st == AXB_OK; k++) {
        const axb_kernel_def *def = &job->kernels[k];
        for (int v = 0; v < 2 && st == AXB_OK; v++) {
            char name[KOUT_NAME_MAX];
            snprintf(name, sizeof name, v ? "%s_velocity" : "%s", def->name);
            const double *data = (v ? res->velocity : res->seismogram) + (int64_t)k * res->seis_npts;
            hid_t d = H5I_INVALID_HID;
            st = put_dataset(g, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 1, dims, data, &d, err);
            if (st == AXB_OK) st = seismogram_attrs(d, job, def, v ? "velocity" : "displacement", res->seis_dt, err);
            st = close_obj(d, st, name, err);
            if (st != AXB_OK) axb_error_prefix(err, "seismograms");
        }
    }
    return close_obj(g, st, "seismograms", err);
}

/* rename() publishes the name; the data must be on disk first or a crash could show an empty file
 * under the final name. */
static axb_status sync_file(const char *path, axb_error *err)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0 || fsync(fd) != 0) {
        int e = errno;
        if (fd >= 0) close(fd);
        return axb_error_set(err, AXB_ERR_IO, "%s: cannot sync to disk: %s", path, strerror(e));
    }
    close(fd);
    return AXB_OK;
}

static axb_status write_h5(const char *path, const axb_kernel_job *job, const axb_kernel_result *res, axb_error *err)
{
    hid_t f = H5Fcreate(path, H5F_ACC_EXCL, H5P_DEFAULT, H5P_DEFAULT);
    if (f < 0) return axb_h5_error(err, "%s: cannot create", path);
    axb_status st = write_root_attrs(f, job, res, err);
    if (st == AXB_OK) st = write_mesh(f, res, err);
    if (st == AXB_OK) st = write_columns(f, job, res, true, err);
    if (st == AXB_OK) st = write_columns(f, job, res, false, err);
    if (st == AXB_OK) st = write_seismograms(f, job, res, err);
    if (st != AXB_OK) axb_error_prefix(err, "%s", path);
    if (H5Fclose(f) < 0 && st == AXB_OK) st = axb_h5_error(err, "%s: cannot close", path);
    if (st == AXB_OK) st = sync_file(path, err);
    return st;
}

/* ---- XDMF ---- */

static void xml_text(FILE *x, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", x); break;
        case '<': fputs("&lt;", x); break;
        case '>': fputs("&gt;", x); break;
        case '"': fputs("&quot;", x); break;
        case '\'': fputs("&apos;", x); break;
        default: fputc(*s, x); break;
        }
    }
}

/* One DataItem referring to dataset @p dset of the HDF5 file @p h5 (by name, beside the XDMF). */
static void xdmf_item(FILE *x, const char *indent, const char *h5, const char *dset, const char *name, int64_t n0,
                      int n1, bool is_int)
{
    fprintf(x, "%s<DataItem Format=\"HDF\" NumberType=\"%s\" Precision=\"8\" Dimensions=\"%lld", indent,
            is_int ? "Int" : "Float", (long long)n0);
    if (n1 > 0) fprintf(x, " %d", n1);
    fputs("\">", x);
    xml_text(x, h5);
    fprintf(x, ":/%s/", dset);
    xml_text(x, name);
    fputs("</DataItem>\n", x);
}

static void xdmf_attribute(FILE *x, const char *label, const char *h5, const char *group, const char *name,
                           const char *center, int64_t n, bool is_int)
{
    fputs("      <Attribute Name=\"", x);
    xml_text(x, label);
    fprintf(x, "\" AttributeType=\"Scalar\" Center=\"%s\">\n", center);
    xdmf_item(x, "        ", h5, group, name, n, 0, is_int);
    fputs("      </Attribute>\n", x);
}

static axb_status write_xdmf(const char *path, const char *h5name, const axb_kernel_result *res, axb_error *err)
{
    const axb_invmesh *m = res->mesh;
    const bool tet = m->type == AXB_CELL_TET;
    const int nv = axb_cell_nvert(m->type);
    const char *center = res->per_vertex ? "Node" : "Cell";
    const int64_t nitems = res->per_vertex ? m->nvert : m->ncell;
    FILE *x = fopen(path, "wx");
    if (!x) return axb_error_set(err, AXB_ERR_IO, "%s: cannot create: %s", path, strerror(errno));
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Xdmf Version=\"3.0\">\n  <Domain>\n", x);
    fputs("    <Grid Name=\"kernels\" GridType=\"Uniform\">\n", x);
    fprintf(x, "      <Topology TopologyType=\"%s\" NumberOfElements=\"%lld\">\n", tet ? "Tetrahedron" : "Hexahedron",
            (long long)m->ncell);
    xdmf_item(x, "        ", h5name, "mesh", "cells", m->ncell, nv, true);
    fputs("      </Topology>\n      <Geometry GeometryType=\"XYZ\">\n", x);
    xdmf_item(x, "        ", h5name, "mesh", "vertices", m->nvert, 3, false);
    fputs("      </Geometry>\n", x);
    for (int c = 0; c < res->ncolumns; c++)
        xdmf_attribute(x, res->columns[c].name, h5name, "kernels", res->columns[c].name, center, nitems, false);
    for (int c = 0; c < res->ncolumns; c++) {
        char label[KOUT_NAME_MAX];
        snprintf(label, sizeof label, "%s_error", res->columns[c].name);
        xdmf_attribute(x, label, h5name, "errors", res->columns[c].name, center, nitems, false);
    }
    xdmf_attribute(x, "points", h5name, "mesh", "points", "Cell", m->ncell, true);
    xdmf_attribute(x, "volume", h5name, "mesh", "volume", "Cell", m->ncell, false);
    fputs("    </Grid>\n  </Domain>\n</Xdmf>\n", x);
    bool ok = !ferror(x) && fflush(x) == 0 && fsync(fileno(x)) == 0;
    int e = ok ? 0 : errno;
    if (fclose(x) != 0 && ok) {
        ok = false;
        e = errno;
    }
    if (!ok) return axb_error_set(err, AXB_ERR_IO, "%s: cannot write: %s", path, strerror(e ? e : EIO));
    return AXB_OK;
}

/* ---- the pair ---- */

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* The XDMF file names the HDF5 file without a folder, so both must be in the same folder;
 * compared by identity, so "out.h5" and "./out.xdmf" agree. */
static axb_status check_same_folder(const char *h5path, const char *xdmfpath, axb_error *err)
{
    char d1[AXB_PARTIAL_PATH_MAX], d2[AXB_PARTIAL_PATH_MAX];
    axb_path_parent(h5path, d1, sizeof d1);
    axb_path_parent(xdmfpath, d2, sizeof d2);
    struct stat s1, s2;
    AXB_CHECK(err, stat(d1, &s1) == 0 && S_ISDIR(s1.st_mode), AXB_ERR_IO, "%s: output folder %s does not exist", h5path,
              d1);
    AXB_CHECK(err, stat(d2, &s2) == 0 && S_ISDIR(s2.st_mode), AXB_ERR_IO, "%s: output folder %s does not exist",
              xdmfpath, d2);
    AXB_CHECK(err, s1.st_dev == s2.st_dev && s1.st_ino == s2.st_ino, AXB_ERR_ARG,
              "%s must be in the folder of %s: it refers to it by file name", xdmfpath, h5path);
    AXB_CHECK(err, strchr(base_name(h5path), ':') == NULL, AXB_ERR_ARG,
              "%s: an XDMF file cannot refer to an HDF5 file whose name contains ':'", h5path);
    return AXB_OK;
}

axb_status axb_kernel_output_check(const char *h5path, const char *xdmfpath, bool force, axb_error *err)
{
    AXB_CHECK(err, h5path && xdmfpath, AXB_ERR_ARG, "kernel output: no file name given");
    axb_partial h5, xd;
    AXB_TRY(axb_partial_names(h5path, &h5, err));
    AXB_TRY(axb_partial_names(xdmfpath, &xd, err));
    AXB_CHECK(err, strcmp(h5path, xdmfpath) != 0, AXB_ERR_ARG, "kernel output: %s given for both files", h5path);
    AXB_TRY(check_same_folder(h5path, xdmfpath, err));
    if (!force) {
        AXB_CHECK(err, !path_exists(h5path), AXB_ERR_IO, "%s already exists (use --force to replace it)", h5path);
        AXB_CHECK(err, !path_exists(xdmfpath), AXB_ERR_IO, "%s already exists (use --force to replace it)", xdmfpath);
    }
    return AXB_OK;
}

axb_status axb_kernel_output_write_files(const char *h5file, const char *xdmffile, const char *h5name,
                                         const axb_kernel_job *job, const axb_kernel_result *res, axb_error *err)
{
    AXB_TRY(check_result(job, res, err));
    axb_status st = write_h5(h5file, job, res, err);
    if (st == AXB_OK) st = write_xdmf(xdmffile, h5name, res, err);
    return st;
}

axb_status axb_kernel_output_write(const char *h5path, const char *xdmfpath, const axb_kernel_job *job,
                                   const axb_kernel_result *res, bool force, axb_error *err)
{
    AXB_TRY(axb_kernel_output_check(h5path, xdmfpath, force, err));
    AXB_TRY(check_result(job, res, err));
    axb_partial h5, xd;
    AXB_TRY(axb_partial_names(h5path, &h5, err));
    AXB_TRY(axb_partial_names(xdmfpath, &xd, err));
    /* Written in one go, so a leftover NAME.partial is a killed write with nothing to resume. The
     * old output stays in place until the new one replaces it by rename. */
    AXB_TRY(axb_partial_prepare(&h5, AXB_PARTIAL_FORCE, err));
    AXB_TRY(axb_partial_prepare(&xd, AXB_PARTIAL_FORCE, err));
    axb_status st = axb_kernel_output_write_files(h5.partial, xd.partial, base_name(h5path), job, res, err);
    /* the HDF5 file first: a published XDMF file never refers to a missing one */
    if (st == AXB_OK) st = axb_partial_publish(&h5, err);
    if (st == AXB_OK) st = axb_partial_publish(&xd, err);
    if (st != AXB_OK) {
        (void)unlink(h5.partial);
        (void)unlink(xd.partial);
    }
    return st;
}

axb_status axb_kernel_xdmf_path(const char *h5path, char *out, size_t n, axb_error *err)
{
    AXB_CHECK(err, h5path && out && n > 0, AXB_ERR_ARG, "kernel output: no path given");
    size_t len = strlen(h5path);
    const char *base = base_name(h5path);
    /* "x.h5" -> "x.xdmf"; a bare ".h5" is a hidden file's whole name, not an extension */
    bool ext = len >= 3 && strcmp(h5path + len - 3, ".h5") == 0 && strlen(base) > 3;
    size_t stem = ext ? len - 3 : len;
    int w = snprintf(out, n, "%.*s.xdmf", (int)stem, h5path);
    if (w < 0 || (size_t)w >= n) {
        out[0] = '\0';
        return axb_error_set(err, AXB_ERR_ARG, "%s: the XDMF path does not fit in %zu bytes", h5path, n);
    }
    return AXB_OK;
}

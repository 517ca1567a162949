/* Planning a kernel job (collective): the two databases opened and checked against each other
 * and the job, the inversion mesh, the event's and receivers' positions, the backward channels,
 * and per kernel the reference seismogram (by reciprocity) and the weight spectrum that turns a
 * point's field products into the misfit kernel (docs/kernels.md §4–5). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "axibulk/geometry.h"
#include "core/agree.h"
#include "core/hash.h"
#include "engines/kernel_internal.h"

#define DEG (acos(-1.0) / 180.0)

/* Default per-database cache budget and the cells of one integration step (kernel_cells.c). */
#define CACHE_BYTES ((int64_t)256 << 20)
/* Cells of one batch. More points per step should mean fewer derivations of each element per
 * point, but with 20 receivers 32 cells × 4 points read as many reciprocal elements as 8 cells and
 * waited longer at checkpoints (docs/benchmarks.md); the cache must hold twice a step's elements. */
#define CELLS_PER_BATCH 8

static axb_status check_pair(const axb_kplan *p, axb_error *err)
{
    const axb_db_info *f = p->fwd.info, *b = p->bwd.info;
    const char *what = NULL;
    if (fabs(f->dt - b->dt) > 1e-6 * b->dt)
        what = "time step";
    else if (f->ndumps != b->ndumps)
        what = "number of samples";
    else if (strcmp(f->stf, b->stf) || fabs(f->period - b->period) > 1e-6 * b->period ||
             fabs(f->src_shift - b->src_shift) > 1e-6 * b->dt)
        what = "source time function";
    else if (strcmp(f->background_model, b->background_model) || strcmp(f->external_model, b->external_model) ||
             f->attenuation != b->attenuation || fabs(f->planet_radius - b->planet_radius) > 1.0)
        what = "model";
    if (what)
        return axb_error_set(err, AXB_ERR_ARG, "the forward and backward databases differ in their %s (%s and %s)",
                             what, f->path, b->path);
    return AXB_OK;
}

static axb_status build_mesh(axb_kplan *p, axb_error *err)
{
    const axb_kernel_mesh_spec *ms = &p->job->mesh;
    switch (ms->kind) {
    case AXB_KMESH_VOXELS: AXB_TRY(axb_invmesh_voxels(&ms->grid, p->fwd.info->planet_radius, &p->mesh, err)); break;
    case AXB_KMESH_TET: AXB_TRY(axb_read_tet_mesh(ms->path, ms->facets, &p->mesh, err)); break;
    case AXB_KMESH_ABAQUS: AXB_TRY(axb_read_abaqus_mesh(ms->path, &p->mesh, err)); break;
    case AXB_KMESH_GMSH: AXB_TRY(axb_read_gmsh_mesh(ms->path, &p->mesh, err)); break;
    default: return axb_error_set(err, AXB_ERR_ARG, "unknown mesh kind");
    }
    AXB_CHECK(err, p->mesh.ncell > 0, AXB_ERR_ARG, "the inversion mesh has no cells");
    AXB_TRY(axb_invmesh_check(&p->mesh, err));
    AXB_CHECK(err, !p->job->per_vertex || p->mesh.type == AXB_CELL_TET, AXB_ERR_ARG,
              "values per vertex need a tetrahedral mesh (voxels have no hat functions)");
    /* every vertex inside the radii both databases store */
    const double rmin = fmax(p->fwd.info->min_radius, p->bwd.info->min_radius);
    const double rmax = fmin(p->fwd.info->max_radius, p->bwd.info->max_radius);
    for (int64_t v = 0; v < p->mesh.nvert; v++) {
        const double *x = p->mesh.vert + 3 * v;
        const double r = sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
        AXB_CHECK(err, r >= rmin * (1 - 1e-9) && r <= rmax * (1 + 1e-9), AXB_ERR_RANGE,
                  "mesh vertex %lld lies at radius %.1f km, outside the %.1f to %.1f km the databases store",
                  (long long)v, r / 1e3, rmin / 1e3, rmax / 1e3);
    }
    p->vmesh = 0;
    for (int64_t c = 0; c < p->mesh.ncell; c++) p->vmesh += axb_invmesh_cell_volume(&p->mesh, c);
    return AXB_OK;
}

/* The event where the forward wavefield has it. */
static axb_status place_event(axb_kplan *p, FILE *progress, axb_error *err)
{
    const axb_source *ev = &p->job->event;
    const axb_db_info *f = p->fwd.info;
    AXB_CHECK(err, ev->type == AXB_SRC_MOMENT, AXB_ERR_ARG, "the event must be a moment tensor source");
    AXB_CHECK(err, isfinite(ev->lat) && isfinite(ev->lon) && ev->lat >= -90 && ev->lat <= 90, AXB_ERR_RANGE,
              "event position %g, %g is not a valid latitude, longitude", ev->lat, ev->lon);
    for (int q = 0; q < 6; q++)
        AXB_CHECK(err, isfinite(ev->m[q]), AXB_ERR_RANGE, "the event's moment tensor is not finite");
    AXB_CHECK(err, isfinite(ev->depth), AXB_ERR_ARG, "the event has no depth");
    AXB_CHECK(err, fabs(ev->depth - f->source_depth) <= 1000.0, AXB_ERR_ARG,
              "the event is at %.1f km depth but the forward database %s has its source at %.1f km: compute a "
              "forward database at the event's depth",
              ev->depth / 1e3, f->path, f->source_depth / 1e3);
    double r_used;
    AXB_TRY(axb_db_source_radius(p->fwd.db, &r_used, err));
    const double depth = f->planet_radius - r_used;
    if (progress && p->rank == 0 && fabs(depth - f->source_depth) > 1.0)
        fprintf(progress,
                "kernel: the forward database says its source is at %.3f km depth; the solver put it at %.3f km "
                "(the nearest mesh point), which the kernels use\n",
                f->source_depth / 1e3, depth / 1e3);
    p->src_depth = depth;
    p->src_lon = ev->lon;
    p->src_colat = 90.0 - ev->lat;
    axb_geo_cartesian(ev->lat, ev->lon, f->planet_radius - depth, p->src_xyz);
    return AXB_OK;
}

static axb_status place_receivers(axb_kplan *p, axb_error *err)
{
    const axb_kernel_job *j = p->job;
    const axb_db_info *b = p->bwd.info;
    p->rec_xyz = calloc((size_t)(j->nreceivers > 0 ? j->nreceivers : 1), sizeof *p->rec_xyz);
    AXB_CHECK(err, p->rec_xyz, AXB_ERR_NOMEM, "receiver table");
    for (int64_t r = 0; r < j->nreceivers; r++) {
        const axb_receiver *rc = j->receivers + r;
        const double depth = isnan(rc->depth) ? 0.0 : rc->depth;
        axb_geo_cartesian(rc->lat, rc->lon, b->planet_radius - depth, p->rec_xyz[r]);
    }
    for (int k = 0; k < j->nkernels; k++) {
        const axb_kernel_def *d = j->kernels + k;
        AXB_CHECK(err, d->receiver >= 0 && d->receiver < j->nreceivers, AXB_ERR_ARG,
                  "kernel '%s': receiver index %lld is not in the receiver list", d->name, (long long)d->receiver);
        const axb_receiver *rc = j->receivers + d->receiver;
        AXB_CHECK(err, isfinite(rc->lat) && isfinite(rc->lon) && rc->lat >= -90 && rc->lat <= 90, AXB_ERR_RANGE,
                  "kernel '%s': receiver %s.%s has no valid position", d->name, rc->network, rc->station);
        const double depth = isnan(rc->depth) ? 0.0 : rc->depth;
        AXB_CHECK(err, fabs(depth - b->source_depth) <= 1.0, AXB_ERR_ARG,
                  "kernel '%s': receiver %s.%s is at %.3f km depth but the backward database %s has its receiver at "
                  "%.3f km",
                  d->name, rc->network, rc->station, depth / 1e3, b->path, b->source_depth / 1e3);
        const double dist = axb_geo_distance_deg(j->event.lat, j->event.lon, rc->lat, rc->lon);
        AXB_CHECK(err, dist > 1e-6, AXB_ERR_ARG, "kernel '%s': receiver %s.%s is at the epicentre", d->name,
                  rc->network, rc->station);
    }
    return AXB_OK;
}

/* The unit force of component c at receiver r in the receiver's frame (x̂ south, ŷ east, ẑ up):
 * the directions of `axibulk extract` (R away from the source, T as ObsPy's rotate_ne_rt). */
static axb_status channel_direction(const axb_kplan *p, int64_t r, char c, double n[3], axb_error *err)
{
    const axb_receiver *rc = p->job->receivers + r;
    double s, z, phi;
    axb_geo_rotate_frame(p->src_xyz, rc->lon, 90.0 - rc->lat, &s, &z, &phi);
    n[0] = n[1] = n[2] = 0;
    switch (c) {
    case 'Z': n[2] = 1; break;
    case 'N': n[0] = -1; break;
    case 'E': n[1] = 1; break;
    case 'R': n[0] = -cos(phi), n[1] = -sin(phi); break;
    case 'T': n[0] = -sin(phi), n[1] = cos(phi); break;
    default: return axb_error_set(err, AXB_ERR_ARG, "component '%c' is not one of Z, R, T, N, E", c);
    }
    const bool vertical = c == 'Z';
    AXB_CHECK(err, vertical ? p->bwd.info->has_sim[AXB_SIM_PZ] : p->bwd.info->has_sim[AXB_SIM_PX], AXB_ERR_ARG,
              "component %c needs the %s simulation, which the backward database %s lacks", c, vertical ? "PZ" : "PX",
              p->bwd.info->path);
    return AXB_OK;
}

static axb_status make_channels(axb_kplan *p, axb_error *err)
{
    const axb_kernel_job *j = p->job;
    p->chan = calloc((size_t)j->nkernels, sizeof *p->chan);
    p->meas = calloc((size_t)j->nkernels, sizeof *p->meas);
    AXB_CHECK(err, p->chan && p->meas, AXB_ERR_NOMEM, "kernel table");
    for (int k = 0; k < j->nkernels; k++) {
        const axb_kernel_def *d = j->kernels + k;
        int c = 0;
        while (c < p->nchan && !(p->chan[c].receiver == d->receiver && p->chan[c].component == d->component)) c++;
        if (c == p->nchan) {
            p->chan[c].receiver = d->receiver;
            p->chan[c].component = d->component;
            AXB_TRY_CTX(err, channel_direction(p, d->receiver, d->component, p->chan[c].n, err), "kernel '%s'",
                        d->name);
            p->nchan++;
        }
        p->meas[k].channel = c;
    }
    return AXB_OK;
}

/* 1/Ŝ(f_k): the databases' source time function history s = stf_dump/amplitude, whose
 * continuous Fourier transform for step-like (errorf) histories is ĝ/(2πif) with g the pulse
 * stf_d_dump/amplitude; zero where the spectrum vanishes. */
static axb_status inverse_stf(const axb_kplan *p, double complex *invS, axb_error *err)
{
    const axb_db_info *b = p->bwd.info;
    const bool step = b->stf_map == 0;
    const double *src = step ? axb_db_get_stf_d(p->bwd.db) : axb_db_get_stf(p->bwd.db);
    double *r = fftw_malloc((size_t)p->nfft * sizeof *r);
    fftw_complex *S = fftw_malloc((size_t)p->nf * sizeof *S);
    if (!r || !S) {
        fftw_free(r);
        fftw_free(S);
        return axb_error_set(err, AXB_ERR_NOMEM, "source spectrum");
    }
    memset(r, 0, (size_t)p->nfft * sizeof *r);
    for (int64_t n = 0; n < p->nt; n++) r[n] = src[n] / b->amplitude;
    fftw_execute_dft_r2c(p->r2c, r, S);
    double smax = 0;
    for (int64_t k = 0; k < p->nf; k++) smax = fmax(smax, cabs(S[k]));
    const double two_pi_df = 2 * acos(-1.0) / ((double)p->nfft * p->dt);
    for (int64_t k = 0; k < p->nf; k++) {
        const double complex sk = p->dt * S[k];
        if (cabs(S[k]) <= 1e-12 * smax)
            invS[k] = 0;
        else
            invS[k] = step ? I * two_pi_df * (double)k / sk : 1.0 / sk;
    }
    fftw_free(r);
    fftw_free(S);
    return AXB_OK;
}

/* Raw seismogram (database sampling) of channel c by reciprocity: M : ε^b at the event. */
static axb_status reference_raw(axb_kplan *p, int c, double *u, double *E, axb_error *err)
{
    const axb_kchannel *ch = p->chan + c;
    const axb_receiver *rc = p->job->receivers + ch->receiver;
    axb_kloc loc;
    AXB_TRY_CTX(err, axb_kdb_locate(&p->bwd, rc->lon, 90.0 - rc->lat, p->src_xyz, &loc, err), "the event");
    AXB_TRY(axb_kdb_prepare(&p->bwd, 1, &loc.elem, err));
    double Rb[3][3], Q[3][3];
    axb_geo_local_basis(rc->lon, 90.0 - rc->lat, Rb);
    axb_k_local_rotation(Rb, loc.phi, p->src_xyz, Q);
    axb_kdb_backward_field(&p->bwd, &loc, ch->n, Q, E, NULL);
    const double *m = p->job->event.m; /* rr tt pp rt rp tp -> local Voigt (θθ, φφ, rr, φr, θr, θφ) */
    const double v[6] = {m[1], m[2], m[0], m[4], m[3], m[5]};
    const int64_t nt = p->nt;
    for (int64_t t = 0; t < nt; t++)
        u[t] = v[0] * E[t] + v[1] * E[nt + t] + v[2] * E[2 * nt + t] +
            2 * (v[3] * E[3 * nt + t] + v[4] * E[4 * nt + t] + v[5] * E[5 * nt + t]);
    return AXB_OK;
}

/* Transfer functions of kernel k: seismogram Ts and kernel Tk; refuses filters that pass what the
 * source-spectrum division amplifies. */
static axb_status transfer(const axb_kplan *p, int k, const double complex *invS, double complex *Ts,
                           double complex *Tk, axb_error *err)
{
    const axb_kernel_def *d = p->job->kernels + k;
    axb_filter_plan *fp = NULL;
    AXB_TRY(axb_filter_plan_create(&d->filter, p->nt, p->dt, &fp, err));
    const double df = 1.0 / ((double)p->nfft * p->dt);
    double tmax = 0;
    for (int64_t i = 0; i < p->nf; i++) {
        double re, im;
        axb_filter_plan_response(fp, (double)i * df, &re, &im);
        const double complex h = re + I * im;
        /* deconvolving removes the STF's shape but must keep its delay: the origin stays at the
         * database's t_shift, where the windows are measured from (docs/kernels.md (K15)) */
        const bool deconv = p->job->stf == AXB_KSTF_DECONVOLVE;
        const double complex shape = invS[i] * cexp(-I * 2 * acos(-1.0) * (double)i * df * p->t_shift);
        Ts[i] = deconv ? h * shape : h;
        Tk[i] = deconv ? h * invS[i] * shape : h * invS[i];
        tmax = fmax(tmax, cabs(Tk[i]));
    }
    axb_filter_plan_destroy(&fp);
    AXB_CHECK(err, tmax > 0 && cabs(Tk[p->nf - 1]) <= 1e-2 * tmax, AXB_ERR_ARG,
              "the filter does not vanish at the Nyquist frequency (%.4g Hz) once divided by the databases' source "
              "spectrum (%.2g of its maximum; at most 0.01): use longer periods, a higher order or a zero-phase "
              "filter",
              0.5 / p->dt, tmax > 0 ? cabs(Tk[p->nf - 1]) / tmax : 0.0);
    return AXB_OK;
}

/* A trace of a step-like source ends on its static offset; zero-padded, that step would become a
 * spike under the derivative in 1/ŝ and ring back into the record. Deconvolved seismograms are
 * therefore continued past the end: the last value held, then a cosine taper to zero over the
 * record's length. u must hold 2·nt samples; returns 2·nt. */
static int64_t extend_record(double *u, int64_t nt)
{
    const double last = u[nt - 1], pi = acos(-1.0);
    for (int64_t j = 0; j < nt; j++) u[nt + j] = last * 0.5 * (1.0 + cos(pi * (double)j / (double)nt));
    return 2 * nt;
}

static axb_status make_measurements(axb_kplan *p, axb_error *err)
{
    const axb_kernel_job *j = p->job;
    double complex *invS = malloc((size_t)p->nf * sizeof *invS), *Ts = malloc((size_t)p->nf * sizeof *Ts),
                   *Tk = malloc((size_t)p->nf * sizeof *Tk);
    /* twice the record: the deconvolved seismogram continues past it (see extend_record) */
    double *u = malloc(2 * (size_t)p->nt * sizeof *u), *E = malloc(6 * (size_t)p->nt * sizeof *E),
           *seis = malloc(2 * (size_t)p->nt * sizeof *seis), *vel = malloc(2 * (size_t)p->nt * sizeof *vel);
    axb_status st = AXB_OK;
    if (!invS || !Ts || !Tk || !u || !E || !seis || !vel) st = axb_error_set(err, AXB_ERR_NOMEM, "kernel weights");
    if (!st) st = inverse_stf(p, invS, err);
    for (int k = 0; !st && k < j->nkernels; k++) {
        const axb_kernel_def *d = j->kernels + k;
        axb_kmeas *m = p->meas + k;
        if (d->t1 >= d->t2 || !isfinite(d->t1) || !isfinite(d->t2)) {
            st = axb_error_set(err, AXB_ERR_ARG, "kernel '%s': window [%g, %g] s is empty", d->name, d->t1, d->t2);
            break;
        }
        const int64_t n0 = (int64_t)ceil((d->t1 + p->t_shift) / p->dt - 1e-9);
        const int64_t n1 = (int64_t)floor((d->t2 + p->t_shift) / p->dt + 1e-9);
        if (n0 < 0 || n1 > p->nt - 1 || n1 - n0 < 2) {
            st = axb_error_set(err, AXB_ERR_RANGE,
                               "kernel '%s': window [%g, %g] s is not inside the record (%.1f to %.1f s after the "
                               "origin, at least 3 samples)",
                               d->name, d->t1, d->t2, -p->t_shift, (double)(p->nt - 1) * p->dt - p->t_shift);
            break;
        }
        for (int q = 0; q < AXB_KP_COUNT; q++)
            if (d->params & 1u << q) m->base |= axb_kparam_base_kernels((axb_kparam)q);
        if (!st) st = transfer(p, k, invS, Ts, Tk, err);
        if (!st) st = reference_raw(p, m->channel, u, E, err);
        m->G = malloc((size_t)p->nf * sizeof *m->G);
        m->seis = malloc((size_t)p->npts * sizeof *m->seis);
        m->vel = malloc((size_t)p->npts * sizeof *m->vel);
        if (!st && (!m->G || !m->seis || !m->vel)) st = axb_error_set(err, AXB_ERR_NOMEM, "kernel weights");
        const int64_t nu = j->stf == AXB_KSTF_DECONVOLVE ? extend_record(u, p->nt) : p->nt;
        if (!st) st = axb_kernel_weights(nu, p->dt, p->nfft, u, Ts, Tk, n0, n1, d->misfit, seis, vel, m->G, err);
        if (st) {
            axb_error_prefix(err, "kernel '%s'", d->name);
            break;
        }
        memcpy(m->seis, seis + p->ref, (size_t)p->npts * sizeof *seis);
        memcpy(m->vel, vel + p->ref, (size_t)p->npts * sizeof *vel);
        p->base_fwd |= m->base;
    }
    free(invS);
    free(Ts);
    free(Tk);
    free(u);
    free(E);
    free(seis);
    free(vel);
    return st;
}

static axb_status make_columns(axb_kplan *p, axb_error *err)
{
    const axb_kernel_job *j = p->job;
    int n = 0;
    for (int k = 0; k < j->nkernels; k++)
        for (int q = 0; q < AXB_KP_COUNT; q++) n += (j->kernels[k].params >> q) & 1;
    AXB_CHECK(err, n > 0, AXB_ERR_ARG, "the job asks for no kernel parameter");
    p->col = calloc((size_t)n, sizeof *p->col);
    AXB_CHECK(err, p->col, AXB_ERR_NOMEM, "kernel columns");
    for (int k = 0; k < j->nkernels; k++) {
        p->meas[k].first_col = p->ncol;
        for (int q = 0; q < AXB_KP_COUNT; q++)
            if (j->kernels[k].params & 1u << q) {
                axb_kernel_column *c = p->col + p->ncol++;
                c->kernel = k;
                c->param = (axb_kparam)q;
                snprintf(c->name, sizeof c->name, "%s_%s", j->kernels[k].name, axb_kparam_name((axb_kparam)q));
            }
        p->meas[k].ncol = p->ncol - p->meas[k].first_col;
    }
    return AXB_OK;
}

/* The longest period a kernel's filter lets through, roughly: its impulse response (zero-phase
 * filters reach that far before their peak) and the wave's onset spread over about this. */
static double longest_period(const axb_filter_spec *f)
{
    switch (f->kind) {
    case AXB_FILTER_LOWPASS:
    case AXB_FILTER_HIGHPASS:
    case AXB_FILTER_BANDPASS: return 1.0 / f->f1;
    case AXB_FILTER_LOGGABOR: return 2.0 * f->period;
    default: return 0.0;
    }
}

/* The travel-time skip rule's data (docs/kernels.md §8, K30): the fastest P speed of the forward mesh
 * and, per channel, the time after the origin beyond which a scattered wave cannot matter: the
 * latest window end of its kernels plus 1.5 of their longest filter period and the databases'
 * source period (the acausal spread of zero-phase filters and the source pulse). MC Kernel's rule
 * uses the window end alone, and for S-type parameters vs_max; vp_max for every parameter is
 * what keeps P-to-P scattering off shear-modulus perturbations. */
static axb_status make_skip(axb_kplan *p, axb_error *err)
{
    const axb_mesh *m = p->fwd.mesh;
    p->vp_max = 0;
    for (int64_t i = 0; m->vp && i < m->npoints; i++) p->vp_max = fmax(p->vp_max, (double)m->vp[i]);
    AXB_CHECK(err, p->vp_max > 0, AXB_ERR_FORMAT, "%s: the mesh has no P speeds", p->job->fwd_db);
    p->chan_t_end = calloc((size_t)p->nchan, sizeof *p->chan_t_end);
    AXB_CHECK(err, p->chan_t_end, AXB_ERR_NOMEM, "kernel channels");
    for (int k = 0; k < p->job->nkernels; k++) {
        const axb_kernel_def *d = p->job->kernels + k;
        const double spread = 1.5 * fmax(longest_period(&d->filter), p->fwd.info->period);
        double *t = p->chan_t_end + p->meas[k].channel;
        *t = fmax(*t, d->t2 + spread);
    }
    return AXB_OK;
}

/* Everything that determines the output, as computed: the mesh, the source and receivers, each
 * kernel's weight spectrum (filter, window, source handling and the reference seismogram, so the
 * databases' data too), the columns and the integration settings. */
static void make_fingerprint(axb_kplan *p)
{
    const axb_kernel_job *j = p->job;
    uint64_t h = AXB_HASH_INIT;
    h = axb_hash_i64(h, p->mesh.type);
    h = axb_hash_doubles(h, p->mesh.vert, (size_t)(3 * p->mesh.nvert));
    h = axb_hash_bytes(h, p->mesh.cell, (size_t)(p->mesh.ncell * axb_cell_nvert(p->mesh.type)) * sizeof *p->mesh.cell);
    h = axb_hash_doubles(h, p->src_xyz, 3);
    h = axb_hash_doubles(h, j->event.m, 6);
    for (int64_t r = 0; r < j->nreceivers; r++) h = axb_hash_doubles(h, p->rec_xyz[r], 3);
    for (int k = 0; k < j->nkernels; k++) {
        h = axb_hash_i64(h, p->meas[k].channel);
        h = axb_hash_i64(h, p->meas[k].base);
        h = axb_hash_bytes(h, p->meas[k].G, (size_t)p->nf * sizeof *p->meas[k].G);
        h = axb_hash_doubles(h, p->chan[p->meas[k].channel].n, 3);
    }
    for (int c = 0; c < p->ncol; c++) {
        h = axb_hash_str(h, p->col[c].name);
        h = axb_hash_i64(h, p->col[c].param);
    }
    const double num[] = {j->abs_error, j->rel_error, j->damp_radius, p->vp_max};
    h = axb_hash_doubles(h, num, sizeof num / sizeof *num);
    const int64_t ints[] = {j->per_vertex,
                            j->absolute,
                            j->stf,
                            j->points,
                            j->points_per_step,
                            j->max_points,
                            j->min_points,
                            j->mask_source_receiver,
                            j->travel_time_skip,
                            p->nfft,
                            AXB_KERNEL_ENDPOINT_FACTOR};
    h = axb_hash_bytes(h, ints, sizeof ints);
    for (int ch = 0; ch < p->nchan; ch++) h = axb_hash_doubles(h, p->chan_t_end + ch, 1);
    p->fingerprint = h;
}

static axb_status make_fft(axb_kplan *p, axb_error *err)
{
    p->nfft = 16;
    while (p->nfft < 4 * p->nt) p->nfft *= 2; /* the products of two records, filtered, do not wrap */
    p->nf = p->nfft / 2 + 1;
    double *r = fftw_malloc((size_t)p->nfft * sizeof *r);
    fftw_complex *c = fftw_malloc((size_t)p->nf * sizeof *c);
    p->omega2 = malloc((size_t)p->nf * sizeof *p->omega2);
    axb_status st = AXB_OK;
    if (!r || !c || !p->omega2)
        st = axb_error_set(err, AXB_ERR_NOMEM, "FFT of %lld samples", (long long)p->nfft);
    else {
        p->r2c = fftw_plan_dft_r2c_1d((int)p->nfft, r, c, FFTW_ESTIMATE | FFTW_UNALIGNED);
        if (!p->r2c) st = axb_error_set(err, AXB_ERR_INTERNAL, "FFTW could not plan %lld samples", (long long)p->nfft);
        const double w = 2 * acos(-1.0) / ((double)p->nfft * p->dt);
        for (int64_t k = 0; k < p->nf; k++) p->omega2[k] = (w * (double)k) * (w * (double)k);
    }
    fftw_free(r);
    fftw_free(c);
    return st;
}

/* Everything after the databases are open; any rank may fail here. */
static axb_status plan_rest(axb_kplan *p, FILE *progress, axb_error *err)
{
    const axb_kernel_job *j = p->job;
    AXB_CHECK(err, j->nkernels > 0, AXB_ERR_ARG, "the job defines no kernels");
    AXB_TRY(check_pair(p, err));
    const axb_mesh *fm = p->fwd.mesh;
    AXB_CHECK(err, fm->vp && fm->vs && fm->rho, AXB_ERR_FORMAT,
              "%s: the database stores no background model (Mesh/mesh_vp, mesh_vs, mesh_rho)", p->fwd.info->path);
    p->nt = p->bwd.info->ndumps;
    p->dt = p->bwd.info->dt;
    p->t_shift = p->bwd.info->src_shift;
    p->ref = p->bwd.info->src_shift_samples;
    p->npts = p->nt - p->ref;
    AXB_TRY(build_mesh(p, err));
    AXB_TRY(place_event(p, progress, err));
    AXB_TRY(place_receivers(p, err));
    AXB_TRY(make_channels(p, err));
    AXB_TRY(make_fft(p, err));
    AXB_TRY(make_measurements(p, err));
    AXB_TRY(make_columns(p, err));
    AXB_TRY(make_skip(p, err));
    make_fingerprint(p);
    return AXB_OK;
}

static bool wants_density(const axb_kernel_job *j)
{
    for (int k = 0; k < j->nkernels; k++)
        if (j->kernels[k].params & 1u << AXB_KP_RHO) return true;
    return false;
}

axb_status axb_kplan_create(MPI_Comm comm, const axb_kernel_job *job, const axb_kernel_run_opts *opts, axb_kplan *p,
                            axb_error *err)
{
    FILE *progress = opts->progress;
    const int64_t cache = opts->cache_bytes > 0 ? opts->cache_bytes : CACHE_BYTES;
    memset(p, 0, sizeof *p);
    p->comm = comm;
    p->job = job;
    MPI_Comm_rank(comm, &p->rank);
    MPI_Comm_size(comm, &p->size);
    const int pps = job->points_per_step > 0 ? job->points_per_step : 8;
    p->cells_per_batch = CELLS_PER_BATCH < AXB_KBATCH_CELLS_MAX ? CELLS_PER_BATCH : AXB_KBATCH_CELLS_MAX;
    p->points_per_batch = p->cells_per_batch * pps;
    const bool rho = wants_density(job);
    /* opening is collective and agrees by itself; a refusal names the job's key */
    AXB_TRY_CTX(err,
                axb_kdb_open(comm, job->fwd_db, true, rho, cache, opts->threads, p->points_per_batch, &p->fwd, err),
                "forward-db");
    axb_status st =
        axb_kdb_open(comm, job->bwd_db, false, rho, cache, opts->threads, p->points_per_batch, &p->bwd, err);
    if (st) axb_error_prefix(err, "backward-db");
    if (!st) {
        /* before the first element read, which sizes the original layout's chunk cache; the
         * merged layout ignores it */
        const int64_t chunks = opts->chunk_cache_bytes > 0 ? opts->chunk_cache_bytes : cache;
        axb_db_set_bulk_cache(p->fwd.db, chunks);
        axb_db_set_bulk_cache(p->bwd.db, chunks);
    }
    if (!st) st = plan_rest(p, progress, err);
    st = axb_agree(comm, st, err);
    if (st) axb_kplan_free(p);
    return st;
}

void axb_kplan_free(axb_kplan *p)
{
    axb_kdb_close(&p->fwd);
    axb_kdb_close(&p->bwd);
    axb_invmesh_free(&p->mesh);
    free(p->rec_xyz);
    free(p->chan);
    if (p->meas)
        for (int k = 0; k < p->job->nkernels; k++) {
            free(p->meas[k].G);
            free(p->meas[k].seis);
            free(p->meas[k].vel);
        }
    free(p->meas);
    free(p->col);
    free(p->omega2);
    free(p->chan_t_end);
    if (p->r2c) fftw_destroy_plan(p->r2c);
    memset(p, 0, sizeof *p);
}

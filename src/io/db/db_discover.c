/* Finding the database files under a directory, with the rules Instaseis uses
 * (database_interfaces/__init__.py: find_and_open_files), so the same folders open in both. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/paths.h"
#include "io/db/db_internal.h"
#include "io/db/db_names.h"

#define MAX_HITS 16
#define MAX_DEPTH 4

typedef struct hit {
    char path[AXB_PATH_MAX];
    const char *rel; /* points into path, below the root */
    bool merged;
} hit;

typedef struct walk {
    hit hits[MAX_HITS];
    int nhits; /* may exceed MAX_HITS: counted, not stored */
    size_t rootlen;
    char sims[MAX_HITS][AXB_PATH_MAX]; /* simulation folders (PZ, MZZ, ...) walked deep enough to
                                          reach their Data/ folder: each must hold a file */
    int nsims;                         /* may exceed MAX_HITS: counted, not stored */
} walk;

static const char *const sim_keys[AXB_NSIM] = {"PX", "PZ", "MZZ", "MXX_P_MYY", "MXZ_MYZ", "MXY_MXX_M_MYY"};

static bool is_sim_name(const char *n)
{
    for (int k = 0; k < AXB_NSIM; k++)
        if (!strcmp(n, sim_keys[k])) return true;
    return false;
}

static int cmp_desc(const void *a, const void *b)
{
    return strcmp(*(const char *const *)b, *(const char *const *)a);
}

static bool is_db_name(const char *n)
{
    return !strcmp(n, AXB_NC_FILE_ORIGINAL) || !strcmp(n, AXB_NC_FILE_AXISEM) || !strcmp(n, AXB_NC_FILE_MERGED);
}

static axb_status walk_dir(walk *w, const char *dir, int depth, axb_error *err)
{
    DIR *d = opendir(dir);
    if (!d) /* an unreadable sub-folder may hide a member */
        return axb_error_set(err, AXB_ERR_IO, "%s: %s%s", dir, depth ? "cannot read the folder: " : "",
                             strerror(errno));
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    axb_status st = AXB_OK;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 32;
            char **nn = realloc(names, cap * sizeof *nn);
            if (!nn) {
                st = axb_error_set(err, AXB_ERR_NOMEM, "%s", dir);
                goto done;
            }
            names = nn;
        }
        if (!(names[n] = strdup(e->d_name))) {
            st = axb_error_set(err, AXB_ERR_NOMEM, "%s", dir);
            goto done;
        }
        n++;
    }
    /* Instaseis visits names in reverse-sorted order and takes the first database file name, so
     * ordered_output.nc4 beats merged_output.nc4 beats axisem_output.nc4 in one folder. */
    if (n) qsort(names, n, sizeof *names, cmp_desc);
    char path[AXB_PATH_MAX];
    bool taken = false;
    /* Members (database file names, simulation folders) that cannot be used are refused, never
     * skipped: skipping a damaged PZ file leaves a database that looks complete but is not. */
    for (size_t i = 0; i < n && st == AXB_OK; i++) {
        const bool file = is_db_name(names[i]), sim = is_sim_name(names[i]);
        if (snprintf(path, sizeof path, "%s/%s", dir, names[i]) >= (int)sizeof path) {
            if (file || sim)
                st = axb_error_set(err, AXB_ERR_ARG, "%s/%s: path longer than %d characters", dir, names[i],
                                   AXB_PATH_MAX - 1);
            continue;
        }
        struct stat sb;
        if (stat(path, &sb) != 0) { /* follows symlinks, like os.walk(followlinks=True) */
            if (file || sim)
                st =
                    axb_error_set(err, AXB_ERR_IO, "%s: %s", path, errno == ELOOP ? "a symlink loop" : strerror(errno));
            continue;
        }
        if (!file) continue;
        if (!S_ISREG(sb.st_mode)) {
            st = axb_error_set(err, AXB_ERR_FORMAT, "%s: not a regular file (a database file must be one)", path);
            continue;
        }
        if (access(path, R_OK) != 0) {
            st = axb_error_set(err, AXB_ERR_IO, "%s: unreadable: %s", path, strerror(errno));
            continue;
        }
        if (!taken) {
            taken = true;
            if (w->nhits < MAX_HITS) {
                hit *h = &w->hits[w->nhits];
                snprintf(h->path, sizeof h->path, "%s", path);
                h->rel = h->path + w->rootlen + (h->path[w->rootlen] == '/');
                h->merged = !strcmp(names[i], AXB_NC_FILE_MERGED);
            }
            w->nhits++;
        }
    }
    if (depth < MAX_DEPTH) {
        for (size_t i = 0; i < n && st == AXB_OK; i++) {
            if (snprintf(path, sizeof path, "%s/%s", dir, names[i]) >= (int)sizeof path) continue;
            struct stat sb;
            if (stat(path, &sb) != 0 || !S_ISDIR(sb.st_mode)) continue;
            /* the folder is walked at depth + 1, its Data/ at depth + 2 */
            if (is_sim_name(names[i]) && depth + 2 <= MAX_DEPTH) {
                if (w->nsims < MAX_HITS) snprintf(w->sims[w->nsims], AXB_PATH_MAX, "%s", path);
                w->nsims++;
            }
            st = walk_dir(w, path, depth + 1, err);
        }
    }
done:
    for (size_t i = 0; i < n; i++) free(names[i]);
    free(names);
    closedir(d);
    return st;
}

/* Which run a file belongs to: the first path component below the root that names one. */
static int classify(const char *rel)
{
    char buf[AXB_PATH_MAX];
    snprintf(buf, sizeof buf, "%s", rel);
    char *save = NULL;
    for (char *tok = strtok_r(buf, "/", &save); tok; tok = strtok_r(NULL, "/", &save))
        for (int k = 0; k < AXB_NSIM; k++)
            if (!strcmp(tok, sim_keys[k])) return k;
    return -1;
}

axb_status axb_db_discover(const char *path, axb_db_found *found, axb_error *err)
{
    memset(found, 0, sizeof *found);
    struct stat sb;
    if (stat(path, &sb) != 0) return axb_error_set(err, AXB_ERR_IO, "%s: %s", path, strerror(errno));
    if (S_ISREG(sb.st_mode)) {
        /* A merged file may be named directly; its single array says what it holds. */
        AXB_TRY(axb_path_check_length("database file", path, "", err));
        found->layout = AXB_LAYOUT_MERGED;
        found->nfiles = 1;
        snprintf(found->files[0], AXB_PATH_MAX, "%s", path);
        return AXB_OK;
    }
    walk *w = calloc(1, sizeof *w);
    if (!w) return axb_error_set(err, AXB_ERR_NOMEM, "%s", path);
    w->rootlen = strlen(path);
    axb_status st = walk_dir(w, path, 0, err);
    if (st) goto done;
    if (w->nhits == 0) {
        st = axb_error_set(err, AXB_ERR_IO,
                           "%s: no AxiSEM database file (" AXB_NC_FILE_ORIGINAL ", " AXB_NC_FILE_AXISEM
                           " or " AXB_NC_FILE_MERGED ") in it or up to %d folders below",
                           path, MAX_DEPTH);
        goto done;
    }
    for (int i = 0; i < w->nsims && i < MAX_HITS; i++) {
        bool has = false;
        const size_t len = strlen(w->sims[i]);
        for (int k = 0; k < w->nhits && k < MAX_HITS && !has; k++)
            has = !strncmp(w->hits[k].path, w->sims[i], len) && w->hits[k].path[len] == '/';
        if (!has) {
            const char *rel = w->sims[i] + w->rootlen + (w->sims[i][w->rootlen] == '/');
            st = axb_error_set(err, AXB_ERR_FORMAT,
                               "%s: simulation folder %s holds no database file (expected %s/Data/" AXB_NC_FILE_ORIGINAL
                               ")",
                               path, rel, rel);
            goto done;
        }
    }
    if (w->nhits != 1 && w->nhits != 2 && w->nhits != 4) {
        char list[600] = "";
        size_t off = 0;
        for (int i = 0; i < w->nhits && i < MAX_HITS && off < sizeof list; i++)
            off += (size_t)snprintf(list + off, sizeof list - off, "%s%s", i ? ", " : "", w->hits[i].rel);
        st = axb_error_set(err, AXB_ERR_FORMAT, "%s: found %d database files (%s); a database has 1, 2 or 4", path,
                           w->nhits, list);
        goto done;
    }
    if (w->nhits == 1 && w->hits[0].merged) {
        found->layout = AXB_LAYOUT_MERGED;
        found->nfiles = 1;
        snprintf(found->files[0], AXB_PATH_MAX, "%s", w->hits[0].path);
        goto done;
    }
    bool seen[AXB_NSIM] = {false};
    found->layout = AXB_LAYOUT_ORIGINAL;
    for (int i = 0; i < w->nhits; i++) {
        int k = classify(w->hits[i].rel);
        if (k < 0) {
            st = axb_error_set(err, AXB_ERR_FORMAT,
                               "%s: cannot tell which simulation %s belongs to (no PX, PZ, MZZ, "
                               "MXX_P_MYY, MXZ_MYZ or MXY_MXX_M_MYY folder in its path)",
                               path, w->hits[i].rel);
            goto done;
        }
        if (w->hits[i].merged) {
            st = axb_error_set(err, AXB_ERR_FORMAT, "%s: %s is a merged file but sits beside other database files",
                               path, w->hits[i].rel);
            goto done;
        }
        if (seen[k]) {
            st = axb_error_set(err, AXB_ERR_FORMAT, "%s: more than one database file for %s", path,
                               axb_sim_name((axb_sim)k));
            goto done;
        }
        seen[k] = true;
    }
    bool recip = seen[AXB_SIM_PX] || seen[AXB_SIM_PZ];
    bool fwd = seen[AXB_SIM_MZZ] && seen[AXB_SIM_MXX_P_MYY] && seen[AXB_SIM_MXZ_MYZ] && seen[AXB_SIM_MXY_MXX_M_MYY];
    if (recip &&
        (seen[AXB_SIM_MZZ] || seen[AXB_SIM_MXX_P_MYY] || seen[AXB_SIM_MXZ_MYZ] || seen[AXB_SIM_MXY_MXX_M_MYY])) {
        st = axb_error_set(err, AXB_ERR_FORMAT, "%s: mixes reciprocal (PX/PZ) and forward (M**) simulations", path);
        goto done;
    }
    if (!recip && !fwd) {
        st = axb_error_set(err, AXB_ERR_FORMAT,
                           "%s: a forward database needs all four of MZZ, MXX_P_MYY, MXZ_MYZ and "
                           "MXY_MXX_M_MYY",
                           path);
        goto done;
    }
    /* Store the files in axb_sim order so every later loop sees the runs in one fixed order. */
    for (int k = 0; k < AXB_NSIM; k++) {
        if (!seen[k]) continue;
        for (int i = 0; i < w->nhits; i++) {
            if (classify(w->hits[i].rel) != k) continue;
            snprintf(found->files[found->nfiles], AXB_PATH_MAX, "%s", w->hits[i].path);
            found->sims[found->nfiles++] = (axb_sim)k;
        }
    }
done:
    for (int i = 0; i < found->nfiles && st == AXB_OK; i++) /* every rank opens them through MPI-IO */
        st = axb_path_check_length("database file", found->files[i], "", err);
    free(w);
    return st;
}

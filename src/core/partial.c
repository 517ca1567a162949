#include "core/partial.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* each appended list: magic, count, units, checksum (count + sum of units, wrapping) */
#define RECORD_MAGIC ((int64_t)0x31434552424Full) /* "OBRECR1" little-endian, arbitrary */
#define RECORD_VERSION 2

static bool exists(const char *p)
{
    struct stat sb;
    return lstat(p, &sb) == 0;
}

axb_status axb_partial_names(const char *final, axb_partial *p, axb_error *err)
{
    AXB_CHECK(err, final && final[0], AXB_ERR_ARG, "no output name given");
    AXB_CHECK(err, strlen(final) < sizeof p->final, AXB_ERR_ARG, "output path longer than %d characters",
              (int)sizeof p->final - 1);
    snprintf(p->final, sizeof p->final, "%s", final);
    snprintf(p->partial, sizeof p->partial, "%s.partial", final);
    snprintf(p->record, sizeof p->record, "%s.record", p->partial);
    return AXB_OK;
}

int axb_remove_tree(const char *path)
{
    struct stat sb;
    if (lstat(path, &sb) != 0) return errno == ENOENT ? 0 : -1;
    if (!S_ISDIR(sb.st_mode)) return remove(path);
    DIR *d = opendir(path);
    if (!d) return -1;
    int rc = 0;
    struct dirent *ent;
    while (rc == 0 && (ent = readdir(d))) {
        if (!strcmp(ent->d_name, ".") || !strcmp(ent->d_name, "..")) continue;
        size_t n = strlen(path) + strlen(ent->d_name) + 2;
        char *sub = malloc(n);
        if (!sub) {
            rc = -1;
            break;
        }
        snprintf(sub, n, "%s/%s", path, ent->d_name);
        rc = axb_remove_tree(sub);
        free(sub);
    }
    closedir(d);
    return rc == 0 ? rmdir(path) : rc;
}

axb_status axb_partial_prepare(const axb_partial *p, axb_partial_mode mode, axb_error *err)
{
    if (mode == AXB_PARTIAL_RESUME) {
        AXB_CHECK(err, !exists(p->final), AXB_ERR_ARG, "%s is complete already: nothing to resume", p->final);
        AXB_CHECK(err, exists(p->partial) && exists(p->record), AXB_ERR_IO,
                  "cannot resume: no unfinished %s (or its record %s)", p->partial, p->record);
        return AXB_OK;
    }
    if (mode == AXB_PARTIAL_NEW) {
        AXB_CHECK(err, !exists(p->final), AXB_ERR_IO, "%s already exists (use --force to replace it)", p->final);
        AXB_CHECK(err, !exists(p->partial), AXB_ERR_IO,
                  "%s exists from an unfinished run: use --resume to continue it or --force to start again",
                  p->partial);
    }
    if (axb_remove_tree(p->partial) != 0)
        return axb_error_set(err, AXB_ERR_IO, "%s: cannot remove the leftover of an earlier run: %s", p->partial,
                             strerror(errno));
    if (unlink(p->record) != 0 && errno != ENOENT)
        return axb_error_set(err, AXB_ERR_IO, "%s: cannot remove: %s", p->record, strerror(errno));
    return AXB_OK;
}

bool axb_partial_nothing_recorded(const axb_partial *p)
{
    if (exists(p->final) || !exists(p->partial)) return false;
    FILE *f = fopen(p->record, "rb");
    if (!f) return errno == ENOENT;
    int c;
    while ((c = fgetc(f)) != EOF && c != '\n') {
    }
    int64_t head[2];
    /* a list is its head and at least one unit */
    const bool listed = c == '\n' && fread(head, sizeof head, 1, f) == 1 && head[0] == RECORD_MAGIC && head[1] > 0 &&
        fread(head, sizeof head[0], 1, f) == 1;
    fclose(f);
    return !listed;
}

static axb_status finish_file(FILE *f, const char *path, bool ok, axb_error *err)
{
    ok = ok && fflush(f) == 0 && fsync(fileno(f)) == 0;
    ok = fclose(f) == 0 && ok;
    return ok ? AXB_OK : axb_error_set(err, AXB_ERR_IO, "%s: cannot write the record: %s", path, strerror(errno));
}

axb_status axb_partial_record_start(const axb_partial *p, const char *kind, const char *identity, axb_error *err)
{
    char tmp[sizeof p->record + 8];
    snprintf(tmp, sizeof tmp, "%s.tmp", p->record);
    FILE *f = fopen(tmp, "wb");
    if (!f) return axb_error_set(err, AXB_ERR_IO, "%s: cannot create: %s", tmp, strerror(errno));
    bool ok = fprintf(f, "axibulk-record %d %s %s\n", RECORD_VERSION, kind, identity) > 0;
    AXB_TRY(finish_file(f, tmp, ok, err));
    if (rename(tmp, p->record) != 0)
        return axb_error_set(err, AXB_ERR_IO, "%s: cannot rename: %s", p->record, strerror(errno));
    return AXB_OK;
}

axb_status axb_partial_record_add(const axb_partial *p, int64_t n, const int64_t *units, axb_error *err)
{
    if (n <= 0) return AXB_OK;
    FILE *f = fopen(p->record, "ab");
    if (!f) return axb_error_set(err, AXB_ERR_IO, "%s: cannot record finished work: %s", p->record, strerror(errno));
    uint64_t sum = (uint64_t)n;
    for (int64_t k = 0; k < n; k++) sum += (uint64_t)units[k];
    const int64_t head[2] = {RECORD_MAGIC, n};
    bool ok = fwrite(head, sizeof head, 1, f) == 1 && fwrite(units, sizeof *units, (size_t)n, f) == (size_t)n &&
        fwrite(&sum, sizeof sum, 1, f) == 1;
    return finish_file(f, p->record, ok, err);
}

/* The words of two identities ("key=value ...") that differ, named: "kind: displacement, now
 * velocity; filter differs". Identities of another shape are quoted whole. */
static void identity_diff(const char *had, const char *want, char *out, size_t size)
{
    size_t n = 0;
    out[0] = '\0';
    const char *w = want;
    while (*w && n + 1 < size) {
        while (*w == ' ') w++;
        const size_t wl = strcspn(w, " ");
        const char *eq = memchr(w, '=', wl);
        if (wl == 0) break;
        if (eq) {
            const size_t kl = (size_t)(eq - w) + 1; /* "key=" */
            const char *h = had, *hv = NULL;
            size_t hl = 0;
            while (*h) {
                while (*h == ' ') h++;
                const size_t l = strcspn(h, " ");
                if (l >= kl && !strncmp(h, w, kl)) {
                    hv = h + kl;
                    hl = l - kl;
                    break;
                }
                h += l;
            }
            const char *wv = eq + 1;
            const size_t wvl = wl - kl;
            if (!hv || hl != wvl || strncmp(hv, wv, wvl) != 0) {
                int k;
                if (!hv)
                    k = snprintf(out + n, size - n, "%s%.*s: not recorded", n ? "; " : "", (int)(kl - 1), w);
                else if (hl <= 40 && wvl <= 40)
                    k = snprintf(out + n, size - n, "%s%.*s: %.*s, now %.*s", n ? "; " : "", (int)(kl - 1), w, (int)hl,
                                 hv, (int)wvl, wv);
                else
                    k = snprintf(out + n, size - n, "%s%.*s differs", n ? "; " : "", (int)(kl - 1), w);
                n = k > 0 && (size_t)k < size - n ? n + (size_t)k : size - 1;
            }
        }
        w += wl;
    }
    if (!out[0]) snprintf(out, size, "'%.200s'; this run: '%.200s'", had, want);
}

axb_status axb_partial_record_read(const axb_partial *p, const char *kind, const char *identity, int64_t nunits,
                                   uint8_t *done, int64_t *ndone, axb_error *err)
{
    *ndone = 0;
    FILE *f = fopen(p->record, "rb");
    if (!f) return axb_error_set(err, AXB_ERR_IO, "cannot resume: %s: %s", p->record, strerror(errno));
    char line[1024] = "", want[1024]; /* line stays a string when fgets reads nothing */
    snprintf(want, sizeof want, "axibulk-record %d %s %s\n", RECORD_VERSION, kind, identity);
    if (!fgets(line, sizeof line, f) || strcmp(line, want) != 0) {
        fclose(f);
        line[strcspn(line, "\n")] = '\0';
        want[strcspn(want, "\n")] = '\0';
        if (strncmp(line, "axibulk-record ", 15) != 0)
            return axb_error_set(err, AXB_ERR_FORMAT, "cannot resume: %s is not an axibulk record", p->record);
        char diff[512];
        identity_diff(line + 15, want + 15, diff, sizeof diff);
        return axb_error_set(err, AXB_ERR_ARG,
                             "cannot resume: %s was written for another job (%s); start again with --force", p->record,
                             diff);
    }
    int64_t head[2], *units = NULL;
    while (fread(head, sizeof head, 1, f) == 1 && head[0] == RECORD_MAGIC && head[1] > 0 && head[1] <= nunits) {
        int64_t *nu = realloc(units, (size_t)head[1] * sizeof *units);
        if (!nu) break;
        units = nu;
        uint64_t sum, check = (uint64_t)head[1];
        if (fread(units, sizeof *units, (size_t)head[1], f) != (size_t)head[1] || fread(&sum, sizeof sum, 1, f) != 1)
            break;
        bool valid = true;
        for (int64_t k = 0; k < head[1]; k++) {
            check += (uint64_t)units[k];
            valid = valid && units[k] >= 0 && units[k] < nunits;
        }
        if (!valid || check != sum) break; /* a torn list: nothing after it is trusted */
        for (int64_t k = 0; k < head[1]; k++) {
            *ndone += !done[units[k]];
            done[units[k]] = 1;
        }
    }
    free(units);
    fclose(f);
    return AXB_OK;
}

static void sync_parent(const char *path)
{
    char dir[AXB_PARTIAL_PATH_MAX];
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else if (slash == path)
        snprintf(dir, sizeof dir, "/");
    else
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    int fd = open(dir, O_RDONLY);
    if (fd >= 0) {
        (void)fsync(fd); /* best effort: some file systems refuse fsync on folders */
        close(fd);
    }
}

axb_status axb_partial_publish(const axb_partial *p, axb_error *err)
{
    struct stat sb;
    AXB_CHECK(err, lstat(p->partial, &sb) == 0, AXB_ERR_IO, "%s: missing at the end of the run", p->partial);
    if (S_ISDIR(sb.st_mode) && exists(p->final)) {
        /* rename() cannot replace a non-empty folder: the old one goes aside, then away */
        char old[sizeof p->final + 16];
        snprintf(old, sizeof old, "%s.replaced", p->final);
        if (axb_remove_tree(old) != 0 || rename(p->final, old) != 0)
            return axb_error_set(err, AXB_ERR_IO, "%s: cannot move the old output aside: %s", p->final,
                                 strerror(errno));
        if (rename(p->partial, p->final) != 0)
            return axb_error_set(err, AXB_ERR_IO, "%s: cannot rename %s: %s", p->final, p->partial, strerror(errno));
        if (axb_remove_tree(old) != 0)
            return axb_error_set(err, AXB_ERR_IO, "%s: cannot remove the replaced output: %s", old, strerror(errno));
    } else if (rename(p->partial, p->final) != 0) {
        return axb_error_set(err, AXB_ERR_IO, "%s: cannot rename to %s: %s", p->partial, p->final, strerror(errno));
    }
    sync_parent(p->final);
    if (unlink(p->record) != 0 && errno != ENOENT)
        return axb_error_set(err, AXB_ERR_IO, "%s: cannot remove: %s", p->record, strerror(errno));
    return AXB_OK;
}

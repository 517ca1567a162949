/* Path lengths Open MPI can open, and outputs kept off inputs (see paths.h). */
#define _DEFAULT_SOURCE /* realpath */
#include "core/paths.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

axb_status axb_path_check_length(const char *what, const char *path, const char *suffix, axb_error *err)
{
    AXB_CHECK(err, path && *path, AXB_ERR_ARG, "%s: an empty path", what);
    const size_t n = strlen(path), total = n + strlen(suffix);
    if (total > AXB_MPIIO_PATH_MAX && total == n)
        return axb_error_set(err, AXB_ERR_ARG,
                             "%s %s: %zu characters, more than the %d that Open MPI's I/O can open (a relative path "
                             "is shorter; see docs/cli.md)",
                             what, path, n, AXB_MPIIO_PATH_MAX);
    if (total > AXB_MPIIO_PATH_MAX)
        return axb_error_set(err, AXB_ERR_ARG,
                             "%s %s: %zu characters, at most %zu fit (with '%s' added it must stay within the %d that "
                             "Open MPI's I/O can open; a relative path is shorter, see docs/cli.md)",
                             what, path, n, (size_t)AXB_MPIIO_PATH_MAX - (total - n), suffix, AXB_MPIIO_PATH_MAX);
    /* the last component of path + suffix (the suffix may add folders) */
    size_t end = total, start = total;
    while (start > 0) {
        const char c = start > n ? suffix[start - 1 - n] : path[start - 1];
        if (c == '/') {
            if (start == end) { /* trailing slashes */
                end = --start;
                continue;
            }
            break;
        }
        start--;
    }
    if (end - start > AXB_MPIIO_NAME_MAX)
        return axb_error_set(err, AXB_ERR_ARG,
                             "%s %s: its name has %zu characters, at most %zu fit (with '%s' added a name must stay "
                             "within the %d that Open MPI's I/O can open; see docs/cli.md)",
                             what, path, end - start - (total - n), (size_t)AXB_MPIIO_NAME_MAX - (total - n), suffix,
                             AXB_MPIIO_NAME_MAX);
    return AXB_OK;
}

/* The absolute, symlink-free form of @p path, which need not exist: the longest existing prefix
 * through realpath, the rest appended with "." and ".." folded by hand. */
static bool canonical(const char *path, char out[PATH_MAX])
{
    char buf[PATH_MAX];
    size_t n = strlen(path);
    if (n == 0 || n >= sizeof buf) return false;
    memcpy(buf, path, n + 1);
    while (n > 1 && buf[n - 1] == '/') buf[--n] = '\0';
    if (realpath(buf, out)) return true;
    if (errno != ENOENT) return false; /* a loop, no permission: the open that follows says so */
    char *slash = strrchr(buf, '/');
    const char *last = buf;
    if (!slash) {
        if (!realpath(".", out)) return false;
    } else {
        *slash = '\0';
        last = slash + 1;
        if (!canonical(slash == buf ? "/" : buf, out)) return false;
    }
    if (!strcmp(last, ".")) return true;
    size_t m = strlen(out);
    if (!strcmp(last, "..")) {
        char *up = strrchr(out, '/');
        if (up == out)
            out[1] = '\0';
        else if (up)
            *up = '\0';
        return true;
    }
    const int w = snprintf(out + m, PATH_MAX - m, "%s%s", out[m - 1] == '/' ? "" : "/", last);
    return w >= 0 && (size_t)w < PATH_MAX - m;
}

/* @p inner is @p outer or lies below it. */
static bool within(const char *inner, const char *outer)
{
    const size_t n = strlen(outer);
    if (strncmp(inner, outer, n) != 0) return false;
    return inner[n] == '\0' || inner[n] == '/' || (n > 0 && outer[n - 1] == '/');
}

axb_status axb_path_check_apart(const char *out_what, const char *out, const char *in_what, const char *in,
                                axb_error *err)
{
    if (!out || !in) return AXB_OK;
    struct stat so, si;
    bool same = stat(out, &so) == 0 && stat(in, &si) == 0 && so.st_dev == si.st_dev && so.st_ino == si.st_ino;
    char co[PATH_MAX], ci[PATH_MAX];
    if (!same && canonical(out, co) && canonical(in, ci)) {
        if (within(co, ci))
            return axb_error_set(err, AXB_ERR_ARG, "%s %s %s %s %s: writing it would destroy the input", out_what, out,
                                 strcmp(co, ci) ? "lies inside" : "is", in_what, in);
        if (within(ci, co))
            return axb_error_set(err, AXB_ERR_ARG, "%s %s lies inside %s %s: writing that would destroy the input",
                                 in_what, in, out_what, out);
    }
    AXB_CHECK(err, !same, AXB_ERR_ARG, "%s %s is %s %s: writing it would destroy the input", out_what, out, in_what,
              in);
    return AXB_OK;
}

void axb_path_parent(const char *path, char *dir, size_t size)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(dir, size, ".");
    else if (slash == path)
        snprintf(dir, size, "/");
    else
        snprintf(dir, size, "%.*s", (int)(slash - path), path);
}

axb_status axb_path_check_room(const char *path, const char *folder, const char *what, double need, axb_error *err)
{
    struct statvfs vfs;
    if (statvfs(folder, &vfs) != 0) return AXB_OK;
    const double have = (double)vfs.f_bavail * (double)vfs.f_frsize;
    AXB_CHECK(err, have >= need, AXB_ERR_RESOURCE,
              "%s: not enough free disk: %s needs up to %.3f GB, %.3f GB are free in '%s'", path, what, need / 1e9,
              have / 1e9, folder);
    return AXB_OK;
}

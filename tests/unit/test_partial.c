/* The .partial protocol (core/partial.c): names, the refusals of each mode, the record (identity,
 * appended lists, a torn tail ignored, a foreign header refused), publishing files and folders. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "core/partial.h"

static bool exists(const char *p)
{
    struct stat sb;
    return stat(p, &sb) == 0;
}

static void touch(const char *p, const char *text)
{
    FILE *f = fopen(p, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static void test_modes(check_ctx *T, const char *dir)
{
    char final[512];
    snprintf(final, sizeof final, "%s/out.h5", dir);
    axb_partial p;
    axb_error err = AXB_ERROR_INIT;
    CHECK(T, axb_partial_names(final, &p, &err) == AXB_OK);
    CHECK(T, !strcmp(p.partial + strlen(final), ".partial"));
    CHECK(T, !strcmp(p.record + strlen(final), ".partial.record"));

    CHECK(T, axb_partial_prepare(&p, AXB_PARTIAL_NEW, &err) == AXB_OK);
    CHECK(T, axb_partial_prepare(&p, AXB_PARTIAL_RESUME, &err) == AXB_ERR_IO);
    CHECK_CONTAINS(T, err.msg, "cannot resume");
    touch(p.partial, "half");
    CHECK(T, axb_partial_prepare(&p, AXB_PARTIAL_NEW, &err) == AXB_ERR_IO);
    CHECK_CONTAINS(T, err.msg, "--resume");
    CHECK(T, axb_partial_prepare(&p, AXB_PARTIAL_FORCE, &err) == AXB_OK);
    CHECK(T, !exists(p.partial));
    touch(final, "old");
    CHECK(T, axb_partial_prepare(&p, AXB_PARTIAL_NEW, &err) == AXB_ERR_IO);
    CHECK_CONTAINS(T, err.msg, "--force");
    CHECK(T, axb_partial_prepare(&p, AXB_PARTIAL_RESUME, &err) == AXB_ERR_ARG);
    CHECK_CONTAINS(T, err.msg, "complete already");
    unlink(final);

    char longname[AXB_PARTIAL_PATH_MAX + 10];
    memset(longname, 'x', sizeof longname - 1);
    longname[sizeof longname - 1] = '\0';
    CHECK(T, axb_partial_names(longname, &p, &err) == AXB_ERR_ARG);
}

static void test_record(check_ctx *T, const char *dir)
{
    char final[512];
    snprintf(final, sizeof final, "%s/rec.h5", dir);
    axb_partial p;
    axb_error err = AXB_ERROR_INIT;
    CHECK(T, axb_partial_names(final, &p, &err) == AXB_OK);
    CHECK(T, axb_partial_record_start(&p, "extract", "rows=10 format=bulk", &err) == AXB_OK);
    const int64_t a[] = {3, 1, 4}, b[] = {9, 0};
    CHECK(T, axb_partial_record_add(&p, 3, a, &err) == AXB_OK);
    CHECK(T, axb_partial_record_add(&p, 0, NULL, &err) == AXB_OK);
    CHECK(T, axb_partial_record_add(&p, 2, b, &err) == AXB_OK);

    uint8_t done[10] = {0};
    int64_t n = -1;
    CHECK(T, axb_partial_record_read(&p, "extract", "rows=10 format=bulk", 10, done, &n, &err) == AXB_OK);
    CHECK(T, n == 5 && done[0] && done[1] && done[3] && done[4] && done[9] && !done[2] && !done[5]);

    /* another job's record is refused, naming what differs */
    memset(done, 0, sizeof done);
    CHECK(T, axb_partial_record_read(&p, "extract", "rows=10 format=asdf", 10, done, &n, &err) == AXB_ERR_ARG);
    CHECK_CONTAINS(T, err.msg, "(format: bulk, now asdf)");
    CHECK(T,
          axb_partial_record_read(&p, "extract", "rows=10 format=bulk filter=none", 10, done, &n, &err) == AXB_ERR_ARG);
    CHECK_CONTAINS(T, err.msg, "(filter: not recorded)");
    CHECK(T, axb_partial_record_read(&p, "extract", "rows=11 format=asdf", 10, done, &n, &err) == AXB_ERR_ARG);
    CHECK_CONTAINS(T, err.msg, "(rows: 10, now 11; format: bulk, now asdf)");
    CHECK(T, axb_partial_record_read(&p, "repack", "rows=10 format=bulk", 10, done, &n, &err) == AXB_ERR_ARG);

    /* a torn last list (killed mid-write): the intact lists count, the torn one does not */
    const int64_t c[] = {5, 6, 7};
    CHECK(T, axb_partial_record_add(&p, 3, c, &err) == AXB_OK);
    struct stat sb;
    CHECK(T, stat(p.record, &sb) == 0);
    CHECK(T, truncate(p.record, sb.st_size - 4) == 0);
    memset(done, 0, sizeof done);
    CHECK(T, axb_partial_record_read(&p, "extract", "rows=10 format=bulk", 10, done, &n, &err) == AXB_OK);
    CHECK(T, n == 5 && !done[5] && !done[6] && !done[7]);

    /* a damaged unit (checksum) ends the trusted part too */
    CHECK(T, axb_partial_record_start(&p, "extract", "rows=10 format=bulk", &err) == AXB_OK);
    CHECK(T, axb_partial_record_add(&p, 2, b, &err) == AXB_OK);
    CHECK(T, axb_partial_record_add(&p, 3, c, &err) == AXB_OK);
    CHECK(T, stat(p.record, &sb) == 0);
    int fd = open(p.record, O_WRONLY);
    const int64_t evil = 8;
    CHECK(T, fd >= 0 && pwrite(fd, &evil, sizeof evil, sb.st_size - 2 * (off_t)sizeof(int64_t)) == sizeof evil);
    if (fd >= 0) close(fd);
    memset(done, 0, sizeof done);
    CHECK(T, axb_partial_record_read(&p, "extract", "rows=10 format=bulk", 10, done, &n, &err) == AXB_OK);
    CHECK(T, n == 2 && done[0] && done[9] && !done[5] && !done[8]);

    /* not a record at all */
    touch(p.record, "hello\n");
    CHECK(T, axb_partial_record_read(&p, "extract", "x", 10, done, &n, &err) == AXB_ERR_FORMAT);
    unlink(p.record);
}

static void test_publish(check_ctx *T, const char *dir)
{
    axb_error err = AXB_ERROR_INIT;
    axb_partial p;
    char final[512], inner[AXB_PARTIAL_PATH_MAX + 64];
    /* a file: rename, record removed */
    snprintf(final, sizeof final, "%s/file.h5", dir);
    CHECK(T, axb_partial_names(final, &p, &err) == AXB_OK);
    touch(p.partial, "new");
    CHECK(T, axb_partial_record_start(&p, "k", "i", &err) == AXB_OK);
    CHECK(T, axb_partial_publish(&p, &err) == AXB_OK);
    CHECK(T, exists(final) && !exists(p.partial) && !exists(p.record));
    CHECK(T, axb_partial_publish(&p, &err) == AXB_ERR_IO); /* nothing left to publish */

    /* a folder replaces an old folder only once complete */
    snprintf(final, sizeof final, "%s/db", dir);
    CHECK(T, axb_partial_names(final, &p, &err) == AXB_OK);
    CHECK(T, mkdir(final, 0755) == 0);
    snprintf(inner, sizeof inner, "%s/old.txt", final);
    touch(inner, "old");
    CHECK(T, mkdir(p.partial, 0755) == 0);
    snprintf(inner, sizeof inner, "%s/new.txt", p.partial);
    touch(inner, "new");
    CHECK(T, axb_partial_publish(&p, &err) == AXB_OK);
    snprintf(inner, sizeof inner, "%s/new.txt", final);
    CHECK(T, exists(inner));
    snprintf(inner, sizeof inner, "%s/old.txt", final);
    CHECK(T, !exists(inner));
    snprintf(inner, sizeof inner, "%s.replaced", final);
    CHECK(T, !exists(inner));
    CHECK(T, axb_remove_tree(final) == 0 && !exists(final));
}

int main(void)
{
    check_ctx T = {0, 0, 0};
    char dir[] = "/tmp/axb-partial-XXXXXX";
    if (!mkdtemp(dir)) return 1;
    test_modes(&T, dir);
    test_record(&T, dir);
    test_publish(&T, dir);
    axb_remove_tree(dir);
    return check_summary(&T);
}

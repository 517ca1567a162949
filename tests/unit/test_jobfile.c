/* YAML job files: values, key normalisation, and every refusal with its line number. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "axibulk/jobfile.h"
#include "check.h"

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
}

static void expect_error(check_ctx *T, const char *path, const char *text, const char *frag)
{
    write_file(path, text);
    axb_job job;
    axb_error err = AXB_ERROR_INIT;
    CHECK_MSG(T, axb_job_read(path, &job, &err) == AXB_ERR_FORMAT, "accepted: %s", text);
    CHECK_CONTAINS(T, err.msg, frag);
    CHECK(T, job.n == 0 && job.e == NULL);
}

int main(void)
{
    check_ctx T = {0, 0, 0};
    char path[] = "/tmp/axb-job-XXXXXX";
    int fd = mkstemp(path);
    close(fd);
    write_file(path,
               "# a job\ndb: /data/prem a\npairs: 'in/pairs.txt'\ndt: 0.5\nremove_source_shift: false\n"
               "components: ZNE   # comment\n");
    axb_job job;
    axb_error err = AXB_ERROR_INIT;
    CHECK_MSG(&T, axb_job_read(path, &job, &err) == AXB_OK, "%s", err.msg);
    CHECK(&T, job.n == 5);
    if (job.n == 5) {
        CHECK_STR(&T, job.e[0].key, "db");
        CHECK_STR(&T, job.e[0].value, "/data/prem a");
        CHECK_STR(&T, job.e[1].value, "in/pairs.txt");
        CHECK_STR(&T, job.e[3].key, "remove-source-shift");
        CHECK_STR(&T, job.e[3].value, "false");
        CHECK(&T, job.e[4].line == 6);
        CHECK_STR(&T, job.e[4].value, "ZNE");
    }
    axb_job_free(&job);
    expect_error(&T, path, "db: a\ndt: 1\ndb: b\n", ":3: key 'db' already given on line 1");
    expect_error(&T, path, "db: a\nout:\n  x: 1\n", ":3: nested mappings are not allowed");
    expect_error(&T, path, "components:\n  - Z\n  - N\n", ":2: lists are not allowed");
    expect_error(&T, path, "db: [unclosed\n", path);
    expect_error(&T, path, "", "empty job file");
    expect_error(&T, path, "just a scalar\n", "expected 'key: value' lines");
    CHECK(&T, axb_job_read("/nonexistent/job.yaml", &job, &err) == AXB_ERR_IO);
    CHECK_CONTAINS(&T, err.msg, "No such file");
    unlink(path);
    return check_summary(&T);
}

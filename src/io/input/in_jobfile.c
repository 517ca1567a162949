/* YAML job files through libyaml's event parser: only a top-level mapping of scalars. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "axibulk/jobfile.h"

void axb_job_free(axb_job *job)
{
    for (int i = 0; i < job->n; i++) {
        free(job->e[i].key);
        free(job->e[i].value);
    }
    free(job->e);
    job->e = NULL;
    job->n = 0;
}

static axb_status add(axb_job *job, const char *path, const char *key, const char *value, int line, axb_error *err)
{
    char *k = strdup(key), *v = strdup(value);
    axb_job_entry *ne = realloc(job->e, (size_t)(job->n + 1) * sizeof *ne);
    if (!k || !v || !ne) {
        free(k);
        free(v);
        if (ne) job->e = ne;
        return axb_error_set(err, AXB_ERR_NOMEM, "%s", path);
    }
    job->e = ne;
    for (char *p = k; *p; p++)
        if (*p == '_') *p = '-';
    for (int i = 0; i < job->n; i++)
        if (!strcmp(job->e[i].key, k)) {
            int first = job->e[i].line;
            free(k);
            free(v);
            return axb_error_set(err, AXB_ERR_FORMAT, "%s:%d: key '%.60s' already given on line %d", path, line, key,
                                 first);
        }
    job->e[job->n++] = (axb_job_entry){k, v, line};
    return AXB_OK;
}

axb_status axb_job_read(const char *path, axb_job *job, axb_error *err)
{
    job->n = 0;
    job->e = NULL;
    FILE *f = fopen(path, "rb");
    if (!f) return axb_error_set(err, AXB_ERR_IO, "%s: %s", path, strerror(errno));
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser)) {
        fclose(f);
        return axb_error_set(err, AXB_ERR_NOMEM, "%s: YAML parser", path);
    }
    yaml_parser_set_input_file(&parser, f);
    axb_status st = AXB_OK;
    int depth = 0; /* nesting of mappings/sequences */
    bool have_key = false, done = false, saw_mapping = false;
    char *key = NULL;
    int key_line = 0;
    while (!done && !st) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&parser, &ev)) {
            st = axb_error_set(err, AXB_ERR_FORMAT, "%s:%zu: %s", path, parser.problem_mark.line + 1,
                               parser.problem ? parser.problem : "invalid YAML");
            break;
        }
        const int line = (int)ev.start_mark.line + 1;
        switch (ev.type) {
        case YAML_MAPPING_START_EVENT:
            if (depth > 0)
                st = axb_error_set(err, AXB_ERR_FORMAT,
                                   "%s:%d: nested mappings are not allowed (job files are 'key: value' lines)", path,
                                   line);
            depth++;
            saw_mapping = true;
            break;
        case YAML_SEQUENCE_START_EVENT:
            st = axb_error_set(err, AXB_ERR_FORMAT, "%s:%d: lists are not allowed (job files are 'key: value' lines)",
                               path, line);
            break;
        case YAML_MAPPING_END_EVENT: depth--; break;
        case YAML_SCALAR_EVENT: {
            const char *val = (const char *)ev.data.scalar.value;
            if (depth != 1) {
                st = axb_error_set(err, AXB_ERR_FORMAT, "%s:%d: expected 'key: value' lines", path, line);
            } else if (!have_key) {
                key = strdup(val);
                key_line = line;
                have_key = true;
                if (!key) st = axb_error_set(err, AXB_ERR_NOMEM, "%s", path);
            } else {
                st = add(job, path, key, val, key_line, err);
                free(key);
                key = NULL;
                have_key = false;
            }
            break;
        }
        case YAML_ALIAS_EVENT:
            st = axb_error_set(err, AXB_ERR_FORMAT, "%s:%d: aliases are not allowed", path, line);
            break;
        case YAML_STREAM_END_EVENT: done = true; break;
        default: break;
        }
        yaml_event_delete(&ev);
    }
    free(key);
    yaml_parser_delete(&parser);
    fclose(f);
    if (!st && !saw_mapping && job->n == 0)
        st = axb_error_set(err, AXB_ERR_FORMAT, "%s: empty job file (expected 'key: value' lines)", path);
    if (st) axb_job_free(job);
    return st;
}

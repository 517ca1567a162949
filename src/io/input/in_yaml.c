/* A YAML document tree from libyaml's event parser (in_yaml.h). libyaml's own document loader
 * would do the same, but it keeps no line per mapping key and accepts aliases, which a job file
 * has no use for; building the tree from events keeps both under our control. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "io/input/in_yaml.h"

/* Deep enough for any job file, shallow enough that a hostile file cannot exhaust the stack. */
#define MAX_DEPTH 32

typedef struct yreader {
    yaml_parser_t parser;
    const char *path;
    axb_error *err;
} yreader;

void axb_yaml_free(axb_ynode *node)
{
    if (!node) return;
    for (int i = 0; i < node->n; i++) {
        if (node->keys) free(node->keys[i]);
        if (node->child) axb_yaml_free(&node->child[i]);
    }
    free(node->keys);
    free(node->klines);
    free(node->child);
    free(node->value);
    memset(node, 0, sizeof *node);
}

bool axb_yaml_key_eq(const char *a, const char *b)
{
    for (; *a && *b; a++, b++) {
        const char ca = *a == '_' ? '-' : *a, cb = *b == '_' ? '-' : *b;
        if (ca != cb) return false;
    }
    return *a == *b;
}

const axb_ynode *axb_yaml_get(const axb_ynode *map, const char *key, int *kline)
{
    if (!map || map->kind != AXB_YNODE_MAP) return NULL;
    for (int i = 0; i < map->n; i++)
        if (axb_yaml_key_eq(map->keys[i], key)) {
            if (kline) *kline = map->klines[i];
            return &map->child[i];
        }
    return NULL;
}

const char *axb_yaml_kind_name(axb_ynode_kind kind)
{
    switch (kind) {
    case AXB_YNODE_SCALAR: return "a text";
    case AXB_YNODE_MAP: return "a mapping";
    case AXB_YNODE_SEQ: return "a list";
    }
    return "?";
}

static axb_status next_event(yreader *r, yaml_event_t *ev)
{
    if (!yaml_parser_parse(&r->parser, ev))
        return axb_error_set(r->err, AXB_ERR_FORMAT, "%s:%zu: %s", r->path, r->parser.problem_mark.line + 1,
                             r->parser.problem ? r->parser.problem : "invalid YAML");
    return AXB_OK;
}

static int line_of(const yaml_event_t *ev)
{
    return (int)ev->start_mark.line + 1;
}

/* Makes room for entry n of a mapping or sequence node (capacity *cap). */
static axb_status grow(yreader *r, axb_ynode *node, int *cap)
{
    if (node->n < *cap) return AXB_OK;
    const int nc = *cap ? 2 * *cap : 8;
    axb_ynode *c = realloc(node->child, (size_t)nc * sizeof *c);
    if (c) node->child = c;
    if (node->kind == AXB_YNODE_MAP) {
        char **k = realloc(node->keys, (size_t)nc * sizeof *k);
        if (k) node->keys = k;
        int *l = realloc(node->klines, (size_t)nc * sizeof *l);
        if (l) node->klines = l;
        if (!k || !l) c = NULL;
    }
    if (!c) return axb_error_set(r->err, AXB_ERR_NOMEM, "%s", r->path);
    *cap = nc;
    return AXB_OK;
}

static axb_status parse_node(yreader *r, yaml_event_t *ev, axb_ynode *out, int depth);

/* The entries after a MAPPING_START or SEQUENCE_START, up to the matching end. */
static axb_status parse_children(yreader *r, axb_ynode *out, int depth)
{
    int cap = 0;
    for (;;) {
        yaml_event_t ev;
        AXB_TRY(next_event(r, &ev));
        if (ev.type == YAML_MAPPING_END_EVENT || ev.type == YAML_SEQUENCE_END_EVENT) {
            yaml_event_delete(&ev);
            return AXB_OK;
        }
        axb_status st = grow(r, out, &cap);
        char *key = NULL;
        int kline = 0;
        if (!st && out->kind == AXB_YNODE_MAP) {
            kline = line_of(&ev);
            if (ev.type != YAML_SCALAR_EVENT) {
                st = axb_error_set(r->err, AXB_ERR_FORMAT, "%s:%d: mapping keys must be plain names", r->path, kline);
            } else {
                const char *k = (const char *)ev.data.scalar.value;
                for (int i = 0; i < out->n && !st; i++)
                    if (axb_yaml_key_eq(out->keys[i], k))
                        st = axb_error_set(r->err, AXB_ERR_FORMAT, "%s:%d: key '%.60s' already given on line %d",
                                           r->path, kline, k, out->klines[i]);
                if (!st && !(key = strdup(k))) st = axb_error_set(r->err, AXB_ERR_NOMEM, "%s", r->path);
            }
            yaml_event_delete(&ev);
            if (!st) st = next_event(r, &ev); /* the value's first event */
            if (st) {
                free(key);
                return st;
            }
            out->keys[out->n] = key;
            out->klines[out->n] = kline;
        } else if (st) {
            yaml_event_delete(&ev);
            return st;
        }
        memset(&out->child[out->n], 0, sizeof out->child[out->n]);
        /* counted before parsing so that a failure below still frees what the child holds */
        out->n++;
        st = parse_node(r, &ev, &out->child[out->n - 1], depth + 1);
        if (st) return st;
    }
}

/* Builds the node that starts with @p ev (consumed here). */
static axb_status parse_node(yreader *r, yaml_event_t *ev, axb_ynode *out, int depth)
{
    const int line = line_of(ev);
    axb_status st = AXB_OK;
    memset(out, 0, sizeof *out);
    out->line = line;
    switch (ev->type) {
    case YAML_SCALAR_EVENT:
        out->kind = AXB_YNODE_SCALAR;
        out->value = strdup((const char *)ev->data.scalar.value);
        if (!out->value) st = axb_error_set(r->err, AXB_ERR_NOMEM, "%s", r->path);
        break;
    case YAML_MAPPING_START_EVENT:
    case YAML_SEQUENCE_START_EVENT:
        out->kind = ev->type == YAML_MAPPING_START_EVENT ? AXB_YNODE_MAP : AXB_YNODE_SEQ;
        if (depth >= MAX_DEPTH)
            st = axb_error_set(r->err, AXB_ERR_FORMAT, "%s:%d: nested more than %d levels deep", r->path, line,
                               MAX_DEPTH);
        break;
    case YAML_ALIAS_EVENT:
        st = axb_error_set(r->err, AXB_ERR_FORMAT, "%s:%d: aliases are not allowed", r->path, line);
        break;
    default: st = axb_error_set(r->err, AXB_ERR_FORMAT, "%s:%d: unexpected YAML structure", r->path, line); break;
    }
    const bool nested = !st && out->kind != AXB_YNODE_SCALAR;
    yaml_event_delete(ev);
    if (nested) st = parse_children(r, out, depth);
    return st;
}

/* Skips events up to the first node of the document (or the stream's end: *none). */
static axb_status first_node(yreader *r, yaml_event_t *ev, bool *none)
{
    *none = false;
    for (;;) {
        AXB_TRY(next_event(r, ev));
        if (ev->type == YAML_STREAM_START_EVENT || ev->type == YAML_DOCUMENT_START_EVENT) {
            yaml_event_delete(ev);
            continue;
        }
        if (ev->type == YAML_STREAM_END_EVENT) {
            yaml_event_delete(ev);
            *none = true;
        }
        return AXB_OK;
    }
}

axb_status axb_yaml_read(const char *path, axb_ynode *root, axb_error *err)
{
    memset(root, 0, sizeof *root);
    FILE *f = fopen(path, "rb");
    if (!f) return axb_error_set(err, AXB_ERR_IO, "%s: %s", path, strerror(errno));
    yreader r = {.path = path, .err = err};
    if (!yaml_parser_initialize(&r.parser)) {
        fclose(f);
        return axb_error_set(err, AXB_ERR_NOMEM, "%s: YAML parser", path);
    }
    yaml_parser_set_input_file(&r.parser, f);
    yaml_event_t ev;
    bool none = false;
    axb_status st = first_node(&r, &ev, &none);
    if (!st && none) st = axb_error_set(err, AXB_ERR_FORMAT, "%s: empty job file", path);
    if (!st && !none) st = parse_node(&r, &ev, root, 0);
    /* the document must end here: a second one would be silently ignored otherwise */
    while (!st) {
        AXB_TRY_GOTO(st, next_event(&r, &ev), done);
        const yaml_event_type_t t = ev.type;
        const int line = line_of(&ev);
        yaml_event_delete(&ev);
        if (t == YAML_STREAM_END_EVENT) break;
        if (t != YAML_DOCUMENT_END_EVENT)
            st = axb_error_set(err, AXB_ERR_FORMAT, "%s:%d: only one YAML document is allowed", path, line);
    }
done:
    yaml_parser_delete(&r.parser);
    fclose(f);
    if (st) axb_yaml_free(root);
    return st;
}

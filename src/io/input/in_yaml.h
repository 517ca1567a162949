/* A small YAML document tree built from libyaml's event parser, for job files with nested mappings
 * and lists (the kernel job). Every node keeps the line it starts on, and every mapping key its own
 * line, so that a reader can say "file:line: key 'x': ..." about any value. Not part of the public
 * API. */
#ifndef AXB_IO_IN_YAML_H
#define AXB_IO_IN_YAML_H

#include <stdbool.h>

#include "axibulk/status.h"

typedef enum axb_ynode_kind { AXB_YNODE_SCALAR, AXB_YNODE_MAP, AXB_YNODE_SEQ } axb_ynode_kind;

typedef struct axb_ynode {
    axb_ynode_kind kind;
    int line;                /* 1-based line where the node starts */
    char *value;             /* SCALAR: the text ("" for an empty value) */
    int n;                   /* MAP: entries; SEQ: items */
    char **keys;             /* MAP: [n] keys as written */
    int *klines;             /* MAP: [n] lines of the keys */
    struct axb_ynode *child; /* MAP: [n] values; SEQ: [n] items */
} axb_ynode;

/* Reads the single document of @p path into @p root. Anchors, aliases, tags, non-scalar keys,
 * duplicate keys, more than one document and nesting deeper than 32 levels are refused with
 * AXB_ERR_FORMAT naming the line; an unreadable file is AXB_ERR_IO. @p root is empty on failure. */
axb_status axb_yaml_read(const char *path, axb_ynode *root, axb_error *err);

/* Frees the tree below @p node and leaves it an empty scalar; NULL-safe. */
void axb_yaml_free(axb_ynode *node);

/* Keys compare with '_' and '-' taken as equal ("points_per_step" is "points-per-step"), as in
 * the flat job files of jobfile.h; duplicates are found the same way. */
bool axb_yaml_key_eq(const char *a, const char *b);

/* The value of @p key in mapping @p map, or NULL; *kline (if not NULL) gets the key's line. */
const axb_ynode *axb_yaml_get(const axb_ynode *map, const char *key, int *kline);

/* "a text", "a mapping" or "a list": for messages about wrong types. */
const char *axb_yaml_kind_name(axb_ynode_kind kind);

#endif

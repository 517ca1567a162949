/* A minimal streaming JSON writer for --json outputs (objects, arrays, strings, numbers). */
#ifndef AXB_CLI_JSON_H
#define AXB_CLI_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define AXB_JSON_MAXDEPTH 16

typedef struct axb_json {
    FILE *f;
    int depth;
    bool first[AXB_JSON_MAXDEPTH];
} axb_json;

void axb_json_begin(axb_json *j, FILE *f);          /* opens the top-level object */
void axb_json_end(axb_json *j);                     /* closes everything, adds a newline */
void axb_json_object(axb_json *j, const char *key); /* key NULL inside arrays */
void axb_json_array(axb_json *j, const char *key);
void axb_json_end_object(axb_json *j);
void axb_json_end_array(axb_json *j);
void axb_json_str(axb_json *j, const char *key, const char *v);
void axb_json_num(axb_json *j, const char *key, double v); /* non-finite -> null */
void axb_json_int(axb_json *j, const char *key, int64_t v);
void axb_json_bool(axb_json *j, const char *key, bool v);

#endif

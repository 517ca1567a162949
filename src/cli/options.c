#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_internal.h"

static const axb_opt *find_long(const axb_opt *opts, const char *name, size_t len)
{
    for (const axb_opt *o = opts; o->name; o++)
        if (strlen(o->name) == len && !strncmp(o->name, name, len)) return o;
    return NULL;
}

static const axb_opt *find_short(const axb_opt *opts, char c)
{
    for (const axb_opt *o = opts; o->name; o++)
        if (o->short_name && o->short_name == c) return o;
    return NULL;
}

static axb_status set_value(const axb_opt *o, const char *val, axb_error *err)
{
    char *end = NULL;
    errno = 0;
    switch (o->kind) {
    case AXB_OPT_FLAG: *(bool *)o->target = true; return AXB_OK;
    case AXB_OPT_STRING: *(const char **)o->target = val; return AXB_OK;
    case AXB_OPT_INT: {
        long v = strtol(val, &end, 10);
        AXB_CHECK(err, *val && !*end && !errno, AXB_ERR_ARG, "--%s: '%s' is not an integer", o->name, val);
        *(long *)o->target = v;
        return AXB_OK;
    }
    case AXB_OPT_DOUBLE: {
        double v = strtod(val, &end);
        AXB_CHECK(err, *val && !*end && !errno && isfinite(v), AXB_ERR_ARG, "--%s: '%s' is not a finite number",
                  o->name, val);
        *(double *)o->target = v;
        return AXB_OK;
    }
    }
    return axb_error_set(err, AXB_ERR_INTERNAL, "option kind");
}

axb_status axb_opts_parse(const axb_opt *opts, int argc, char **argv, const char **pos, int maxpos, int *npos,
                          bool *help, axb_error *err)
{
    *npos = 0;
    *help = false;
    bool only_pos = false;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (!only_pos && (!strcmp(a, "-h") || !strcmp(a, "--help"))) {
            *help = true;
            return AXB_OK;
        }
        if (!only_pos && !strcmp(a, "--")) {
            only_pos = true;
            continue;
        }
        const axb_opt *o = NULL;
        const char *val = NULL;
        if (!only_pos && a[0] == '-' && a[1] == '-') {
            const char *eq = strchr(a + 2, '=');
            size_t len = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
            o = find_long(opts, a + 2, len);
            AXB_CHECK(err, o, AXB_ERR_ARG, "unknown option '%.*s' (see --help)", (int)(len + 2), a);
            if (eq) {
                AXB_CHECK(err, o->kind != AXB_OPT_FLAG, AXB_ERR_ARG, "--%s takes no value", o->name);
                val = eq + 1;
            }
        } else if (!only_pos && a[0] == '-' && a[1] && !a[2]) {
            o = find_short(opts, a[1]);
            AXB_CHECK(err, o, AXB_ERR_ARG, "unknown option '%s' (see --help)", a);
        }
        if (!o) {
            AXB_CHECK(err, *npos < maxpos, AXB_ERR_ARG, "unexpected argument '%s' (see --help)", a);
            pos[(*npos)++] = a;
            continue;
        }
        if (o->kind != AXB_OPT_FLAG && !val) {
            AXB_CHECK(err, i + 1 < argc, AXB_ERR_ARG, "--%s needs a value (%s)", o->name,
                      o->metavar ? o->metavar : "VALUE");
            val = argv[++i];
        }
        AXB_TRY(set_value(o, val ? val : "", err));
    }
    return AXB_OK;
}

void axb_opts_print(FILE *out, const axb_opt *opts)
{
    for (const axb_opt *o = opts; o->name; o++) {
        char left[64];
        if (o->short_name)
            snprintf(left, sizeof left, "-%c, --%s%s%s", o->short_name, o->name, o->metavar ? " " : "",
                     o->metavar ? o->metavar : "");
        else
            snprintf(left, sizeof left, "    --%s%s%s", o->name, o->metavar ? " " : "", o->metavar ? o->metavar : "");
        fprintf(out, "  %-28s %s\n", left, o->help);
    }
    fprintf(out, "  %-28s %s\n", "-h, --help", "show this help and exit");
}

axb_status axb_opts_apply(const axb_opt *opts, const char *name, const char *value, axb_error *err)
{
    const axb_opt *o = find_long(opts, name, strlen(name));
    AXB_CHECK(err, o, AXB_ERR_ARG, "unknown option '%s'", name);
    if (o->kind != AXB_OPT_FLAG) return set_value(o, value, err);
    static const char *const yes[] = {"true", "yes", "on", "1"}, *const no[] = {"false", "no", "off", "0"};
    for (int i = 0; i < 4; i++) {
        if (!strcmp(value, yes[i])) return *(bool *)o->target = true, AXB_OK;
        if (!strcmp(value, no[i])) return *(bool *)o->target = false, AXB_OK;
    }
    return axb_error_set(err, AXB_ERR_ARG, "%s: '%s' is not true or false", name, value);
}

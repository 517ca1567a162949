#include "io/hdf5/nc_check.h"

#include <stdarg.h>
#include <stdio.h>

axb_status axb_nc_error(axb_error *err, int rc, const char *fmt, ...)
{
    char ctx[AXB_ERRMSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ctx, sizeof ctx, fmt, ap);
    va_end(ap);
    return axb_error_set(err, AXB_ERR_IO, "%s: %s", ctx, nc_strerror(rc));
}

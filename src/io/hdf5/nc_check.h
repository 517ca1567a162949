/* Checked netCDF-C calls: a failure becomes "<context>: <netCDF's reason>" (AXB_ERR_IO: netCDF
 * failures are almost always the file system's or the file's). */
#ifndef AXB_IO_NC_CHECK_H
#define AXB_IO_NC_CHECK_H

#include <netcdf.h>

#include "axibulk/status.h"

/* Sets AXB_ERR_IO with "<context>: <nc_strerror(rc)>" and returns it. */
axb_status axb_nc_error(axb_error *err, int rc, const char *fmt, ...) AXB_PRINTF(3, 4);

/* Return from the current function if the netCDF call @p call fails; context printf-style. */
#define AXB_NC_TRY(err, call, ...)                                                                                     \
    do {                                                                                                               \
        int axb_nc_rc_ = (call);                                                                                       \
        if (axb_nc_rc_ != NC_NOERR) return axb_nc_error((err), axb_nc_rc_, __VA_ARGS__);                               \
    } while (0)

#endif

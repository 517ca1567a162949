/**
 * @file inputs.h
 * @brief Readers of the input files users give: events (CMTSOLUTION, QuakeML), receivers
 *        (STATIONS, StationXML), pairs files and finite faults (SRF, USGS .param, fault lists).
 *
 * Every malformed line is an AXB_ERR_FORMAT naming file, line and field; the list is empty on
 * failure. Lists are owned by the caller and freed with the *_free functions of source.h (or
 * axb_fault_list_free). Implemented in src/io/input/.
 */
#ifndef AXIBULK_INPUTS_H
#define AXIBULK_INPUTS_H

#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>

#include "axibulk/source.h"
#include "axibulk/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/** CMTSOLUTION (one or many events, moments in dyne·cm). */
AXB_NODISCARD axb_status axb_read_cmtsolution(const char *path, axb_source_list *out, axb_error *err);
/** QuakeML: every event's preferred origin and moment tensor. */
AXB_NODISCARD axb_status axb_read_quakeml(const char *path, axb_source_list *out, axb_error *err);
/** SPECFEM STATIONS: "STA NET LAT LON ELEVATION BURIAL" per line. */
AXB_NODISCARD axb_status axb_read_stations(const char *path, axb_receiver_list *out, axb_error *err);
/** StationXML: one receiver per station (channel location codes collapsed per station). */
AXB_NODISCARD axb_status axb_read_stationxml(const char *path, axb_receiver_list *out, axb_error *err);
/** Whether @p path holds XML (QuakeML, StationXML) rather than a text format (CMTSOLUTION,
 *  STATIONS): its first byte after white space and a UTF-8 byte-order mark is '<'. False if the
 *  file cannot be read (the reader chosen then reports that). */
bool axb_file_looks_xml(const char *path);
/** Pairs file (docs/file-formats.md): "mt ..." and "force ..." lines, geocentric latitudes. */
AXB_NODISCARD axb_status axb_read_pairs(const char *path, axb_pair_list *out, axb_error *err);
/** The same pairs on every rank of @p comm, read together: each rank parses an equal block of the
 *  file's lines and the pairs are gathered, so parsing does not grow with the rank count. Collective;
 *  the result and the error (the first bad line in file order, on every rank) are those of
 *  axb_read_pairs. */
AXB_NODISCARD axb_status axb_read_pairs_shared(MPI_Comm comm, const char *path, axb_pair_list *out, axb_error *err);
/** SRF finite fault (Instaseis' simplified reader); @p normalize divides each sliprate by its
 *  trapezoidal integral. */
AXB_NODISCARD axb_status axb_read_srf(const char *path, bool normalize, axb_source_list *out, axb_error *err);
/** USGS .param finite fault; sliprates are asymmetric cosines with npts samples at dt
 *  (Instaseis' defaults: 10000, 0.1 s, trise_min 1 s). */
AXB_NODISCARD axb_status axb_read_usgs_param(const char *path, int64_t npts, double dt, double trise_min,
                                             axb_source_list *out, axb_error *err);

/** Many finite faults for one job: fault f is sub.src[first[f]] .. sub.src[first[f+1] - 1], read
 *  from path[f]. Owns everything; free with axb_fault_list_free. */
typedef struct axb_fault_list {
    int64_t n;
    int64_t *first; /**< [n + 1] */
    char **path;    /**< [n] as given in the list, resolved against its folder */
    axb_source_list sub;
} axb_fault_list;

/** One finite fault by its extension: USGS `.param` (Instaseis' defaults, as axb_read_usgs_param)
 *  or else SRF (slip rates normalised). */
AXB_NODISCARD axb_status axb_read_finite(const char *path, axb_source_list *out, axb_error *err);

/** One finite-fault file as a one-entry fault list (extract --finite). */
AXB_NODISCARD axb_status axb_read_fault_file(const char *path, axb_fault_list *out, axb_error *err);

/** A list of finite-fault files, one path per line (blank lines and '#' comments skipped;
 *  relative paths are relative to the list's folder), each read with axb_read_finite. Errors
 *  name the list line and the fault file; a fault without point sources is an error. */
AXB_NODISCARD axb_status axb_read_fault_list(const char *path, axb_fault_list *out, axb_error *err);
void axb_fault_list_free(axb_fault_list *l);

#ifdef __cplusplus
}
#endif
#endif

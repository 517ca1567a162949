/* Internals shared by the output front end (out_desc.c, out_writer.c, out_rows.c) and its format
 * backends (out_bulk.c, out_asdf.c). The front end owns everything that does not depend on the
 * format: descriptor checks, file-system checks, the .partial file, its record and its publication
 * (core/partial.h), status agreement, the sorting and precision conversion of written rows, and
 * the bookkeeping of which rows were written. */
#ifndef AXB_IO_OUT_INTERNAL_H
#define AXB_IO_OUT_INTERNAL_H

#include <hdf5.h>
#include <mpi.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "axibulk/output.h"
#include "axibulk/timefmt.h"
#include "core/partial.h"

/* Kind of the output's record (core/partial.h). */
#define OUT_RECORD_KIND "extract"

/* The library is always compiled with its version (src/CMakeLists.txt); files record it. */
#ifndef AXB_VERSION_STRING
#error "AXB_VERSION_STRING must be defined when compiling the library"
#endif
#define OUT_CREATOR "axibulk " AXB_VERSION_STRING

/*
 * One backend per format (the IOR pattern, as for databases). Every operation is collective and
 * is called with the same arguments' shapes on every rank; each returns this rank's status and the
 * front end agrees on the outcome afterwards.
 */
typedef struct axb_out_ops {
    const char *name;
    /* Extra descriptor checks of this format (every rank, no I/O). May be NULL. */
    axb_status (*check)(const axb_output_desc *d, axb_error *err);
    /* Builds every dataset, attribute and table in the freshly created o->file. */
    axb_status (*create)(axb_output *o, const axb_output_desc *d, axb_error *err);
    /* Writes this rank's rows: sorted ascending, distinct, validated; data [n][ncomp][nsamples]
     * already in the file's precision (o->memtype). n may be 0. */
    axb_status (*write)(axb_output *o, int64_t n, const int64_t *rows, const void *data, axb_error *err);
    /* Independent: writes this rank's rows (as for write) while the other ranks do something
     * else; no MPI communication, no collective HDF5 call. NULL: the format has none. */
    axb_status (*write_local)(axb_output *o, int64_t n, const int64_t *rows, const void *data, axb_error *err);
    /* Before the file is closed: written[r] = 1 if some rank wrote row r. May be NULL. */
    axb_status (*finish)(axb_output *o, const uint8_t *written, axb_error *err);
    /* Opens the datasets of an existing PATH.partial made by create with the same descriptor, to
     * resume writing it. NULL: the format cannot resume. */
    axb_status (*reopen)(axb_output *o, const axb_output_desc *d, axb_error *err);
    /* Releases o->impl and the HDF5 objects it holds. Must tolerate a partial create. */
    void (*destroy)(axb_output *o);
} axb_out_ops;

extern const axb_out_ops axb_out_bulk_ops;
extern const axb_out_ops axb_out_asdf_ops;

struct axb_output {
    MPI_Comm comm; /* duplicated from the caller's */
    int rank, size;
    const axb_out_ops *ops;
    axb_partial names;          /* PATH, PATH.partial, PATH.partial.record */
    const char *path, *partial; /* names.final, names.partial */
    char identity[256];         /* the record's header: what fixes the file's layout */
    bool overwrite;
    hid_t file;      /* PATH.partial, MPI-IO driver */
    hid_t dxpl_coll; /* collective transfers */
    hid_t memtype;   /* native float or double: the file's precision */
    size_t elsize;
    axb_precision precision;
    char components[8];
    int ncomp;
    int64_t nrows, nsamples;
    double dt, start_offset;
    const char *units;   /* static string */
    axb_time_ns created; /* rank 0's clock, shared so every rank writes the same metadata */
    uint8_t *written;    /* [nrows] 1 where this rank wrote the row */
    void *convbuf;       /* write-time buffer for sorting/conversion, grown as needed */
    size_t convbuf_size;
    /* Independent writes wait here, in the file's precision, until a checkpoint, the close or a
     * full stage writes them in file order (out_rows.c). */
    void *stage;         /* [stage_cap] rows, in the order they came */
    int64_t *stage_rows; /* [stage_cap] their row numbers */
    int64_t nstaged, stage_cap;
    void *runbuf;     /* [OUT_RUN_BYTES]: staged rows gathered in file order */
    void *impl;       /* backend state, owned by the backend */
    int64_t *pending; /* rows written (by either write) since the last record, to record */
    int64_t npending, pending_cap;
    bool recording;            /* formats that can resume record the rows on disk */
    double checkpoint_seconds; /* between records (axb_output_desc); 0: after every write */
    double last_record;        /* this rank's axb_wall_seconds() at the last record or the opening */
};

/* Bytes of independent writes staged per rank before they are written (at most the rank's share
 * of the file is allocated), and of the buffer that gathers them in file order for the writes.
 * The stage is also written at every checkpoint (10 s by default), so it need hold no more than
 * a checkpoint interval's rows: 256 MB is 10 s of one core on the 20 s PREM database (4.3 KB rows
 * at 40,000 rows/s). With 64 MB, 20,000 such rows (85 MB) went out as 6,800 writes of one or two
 * rows, 0.05-0.07 s of a 0.4 s job; held whole, as 21 runs in 0.01-0.02 s. */
#define OUT_STAGE_BYTES ((int64_t)256 << 20)
#define OUT_RUN_BYTES ((int64_t)4 << 20)

/* MPI counts are int: long row lists go in pieces. */
#define OUT_MPI_CHUNK (1 << 30)

/* ---- descriptor (out_desc.c; every rank, no I/O) ---- */

/* Every check of axb_output_create that needs no file: paths, shape, kind, components, rows. */
axb_status axb_out_check_desc(const axb_output_desc *d, axb_error *err);

/* The record's identity of a descriptor: format, precision, shape, sampling, kind and a checksum
 * of the source, receiver and row tables, so that a resume of another job is refused. */
void axb_out_identity(const axb_output_desc *d, char *buf, size_t size);

/* ---- rows (out_rows.c) ---- */

/* Sorts and checks this rank's rows into @p sorted and puts @p data in file order and precision
 * (*outdata is @p data itself when no copy is needed). */
axb_status axb_out_prepare_rows(axb_output *o, int64_t n, const int64_t *rows, const double *data, int64_t *sorted,
                                const void **outdata, axb_error *err);

/* Writes this rank's staged independent rows (local; the caller agrees on the status). */
axb_status axb_out_flush_stage(axb_output *o, axb_error *err);

/* ---- HDF5 writing helpers (out_h5.c). Every failure is AXB_ERR_HDF5 naming the object and
 * HDF5's innermost reason. All are collective when the file is open with the MPI-IO driver. ---- */

/* Contiguous dataset allocated at creation and never filled (every element is written later, and
 * fill values would double the I/O). */
axb_status axb_h5out_dataset(hid_t loc, const char *name, hid_t type, int rank, const hsize_t *dims, hid_t *out,
                             axb_error *err);
axb_status axb_h5out_group(hid_t loc, const char *name, axb_error *err);

/* Scalar attributes. Strings: variable-length UTF-8 (h5py reads a str) or fixed-length NUL-padded
 * ASCII including the terminating NUL (what ASDF and pyasdf use; h5py reads bytes). */
axb_status axb_h5out_attr_str(hid_t loc, const char *name, const char *value, axb_error *err);
axb_status axb_h5out_attr_fixstr(hid_t loc, const char *name, const char *value, axb_error *err);
axb_status axb_h5out_attr_double(hid_t loc, const char *name, double value, axb_error *err);
axb_status axb_h5out_attr_int64(hid_t loc, const char *name, int64_t value, axb_error *err);

/* Writes a whole small dataset from rank 0 only, collectively (the other ranks select nothing), so
 * every rank makes the same sequence of calls. */
axb_status axb_h5out_write_root(const axb_output *o, hid_t dset, hid_t memtype, const void *buf, axb_error *err);

/* ---- XML text (out_xmltext.c) ---- */

typedef struct sbuf {
    char *p;
    size_t len, cap;
    bool failed; /* out of memory: later appends do nothing */
} sbuf;
void axb_sb_printf(sbuf *b, const char *fmt, ...) AXB_PRINTF(2, 3);
/* Escaped text: markup characters escaped; control and non-ASCII bytes become '?'. */
void axb_sb_text(sbuf *b, const char *s);

/* ---- QuakeML text (out_quakeml.c) ---- */

/* Resource identifiers shared by the QuakeML document and the ASDF trace attributes. */
#define OUT_QML_ID_PREFIX "smi:local/axibulk/"
void axb_qml_id(char *buf, size_t size, const char *what, int64_t isrc);

/* A QuakeML 1.2 document with one event per source (origin; moment tensor and magnitude for
 * moment sources; force components in a comment for force sources). *text is malloc'ed. */
axb_status axb_quakeml_write(const axb_source *src, int64_t n, const char *creator, axb_time_ns created, char **text,
                             size_t *len, axb_error *err);

/* ---- ASDF station and provenance documents (out_asdf_meta.c) ---- */

/* What the StationXML documents need of the rows: by receiver, the first and last sample over its
 * rows and its rows (rows[off[r]..off[r+1])); by row, the first sample's time. */
typedef struct asdf_rows {
    const axb_time_ns *tmin, *tmax;
    const int64_t *off, *rows;
    const axb_time_ns *row_start;
    axb_time_ns span; /* last sample minus first */
} asdf_rows;

/* FDSN StationXML 1.1 of one station: @p recs [nrecs] are the indices of the receivers with its
 * network and station codes that the rows use. Per receiver: Z, N, E channels dated over all its
 * traces; R and T channels, whose orientation depends on the event, one epoch per row. */
axb_status axb_asdf_stationxml(const axb_output *o, const axb_output_desc *d, const int64_t *recs, int64_t nrecs,
                               const asdf_rows *t, char **text, size_t *len, axb_error *err);
/* The provenance entity every trace names (its provenance_id) and the PROV-XML document. */
#define OUT_PROV_NS "http://seisprov.org/seis_prov/0.1/#"
#define OUT_PROV_TRACES "sp004_wf_a8b1c0e"
axb_status axb_asdf_provenance(const axb_output *o, const axb_output_desc *d, char **text, size_t *len, axb_error *err);

#endif

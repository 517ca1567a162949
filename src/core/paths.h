/* Path rules every command checks before it creates or removes anything: lengths that Open MPI's
 * I/O can handle, and outputs that cannot land on an input. Single-process functions without MPI;
 * the callers agree on the outcome (core/agree.h). */
#ifndef AXB_CORE_PATHS_H
#define AXB_CORE_PATHS_H

#include "axibulk/status.h"

/* The longest path, as given, of a file opened through MPI-IO. Open MPI 4.1's ompio (the default
 * I/O component) lets its "lockedfile" shared-file-pointer component format the path plus
 * ".locktest.<rank>" into a 256-byte buffer while it opens any file, even one that never uses a
 * shared file pointer; a longer path aborts the process ("buffer overflow detected"). 238 leaves
 * room for ranks up to 9,999,999. */
#define AXB_MPIIO_PATH_MAX 238
/* The longest last component of such a path: its "sm" component creates
 * "<session dir>/<name>_cid-<C>-<PID>.sm", and that name must fit the file system's 255 bytes
 * (room left for a 5-digit communicator id and a 7-digit process id). */
#define AXB_MPIIO_NAME_MAX 234

/* Refuses @p path when @p path followed by @p suffix (the longest name a command derives from it,
 * e.g. ".partial.record") is longer than AXB_MPIIO_PATH_MAX or its last component longer than
 * AXB_MPIIO_NAME_MAX. @p what names the option in the message ("-o", "database"). */
AXB_NODISCARD axb_status axb_path_check_length(const char *what, const char *path, const char *suffix, axb_error *err);

/* Refuses output @p out if it and input @p in are the same file or folder or one lies inside the
 * other, compared after resolving symlinks, "." and ".." (the output need not exist yet), and by
 * device and inode where both exist (hard links). Paths that cannot be resolved are left to the
 * open that follows. */
AXB_NODISCARD axb_status axb_path_check_apart(const char *out_what, const char *out, const char *in_what,
                                              const char *in, axb_error *err);

/* The folder that holds @p path ("." for a bare name, "/" for a file at the root). */
void axb_path_parent(const char *path, char *dir, size_t size);

/* Refuses (AXB_ERR_RESOURCE: the machine's, exit 1) an output @p path of about @p need bytes
 * (@p what names it) when @p folder's file system has less free space. A folder that cannot be
 * asked is let through: its own errors come when the output is created. */
AXB_NODISCARD axb_status axb_path_check_room(const char *path, const char *folder, const char *what, double need,
                                             axb_error *err);

#endif

/**
 * @file axibulk.h
 * @brief The whole public API of libaxibulk in one include: `#include <axibulk/axibulk.h>`.
 *
 * Link with CMake (`find_package(axibulk)`, target axibulk::axibulk) or pkg-config
 * (`pkg-config --cflags --libs axibulk`). Every exported symbol starts with axb_, every macro
 * with AXB_. docs/example/extract_inprocess.c is a complete program.
 */
#ifndef AXIBULK_AXIBULK_H
#define AXIBULK_AXIBULK_H

#include "axibulk/version.h"

#include "axibulk/status.h"
#include "axibulk/timefmt.h"

#include "axibulk/mesh.h"
#include "axibulk/sem.h"
#include "axibulk/geometry.h"
#include "axibulk/source.h"
#include "axibulk/inputs.h"
#include "axibulk/jobfile.h"
#include "axibulk/timeproc.h"
#include "axibulk/filter.h"

#include "axibulk/db.h"
#include "axibulk/db_memory.h"
#include "axibulk/output.h"
#include "axibulk/extract.h"
#include "axibulk/extract_job.h"
#include "axibulk/mkdb.h"
#include "axibulk/repack.h"
#include "axibulk/cli.h"

#endif

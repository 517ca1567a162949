/**
 * @file invmesh.h
 * @brief Inversion meshes: the cells over which sensitivity kernels are integrated.
 *
 * Two kinds of cells: tetrahedra (from Sigloch/Nolet vertices + facets files, Abaqus `.inp` with
 * C3D4 elements, or Gmsh `.msh` 4.1 ASCII) and spherical voxels (a regular grid in geocentric
 * latitude, longitude and depth). Coordinates are Earth-centred Cartesian metres, z through the
 * north pole, x through latitude 0 / longitude 0 (axb_geo_cartesian's frame).
 *
 * Ownership: a mesh filled by a reader or axb_invmesh_voxels owns its arrays; axb_invmesh_free
 * releases them and leaves an empty mesh. Readers leave *out empty on failure.
 */
#ifndef AXIBULK_INVMESH_H
#define AXIBULK_INVMESH_H

#include <stdbool.h>
#include <stdint.h>

#include "axibulk/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum axb_cell_type {
    AXB_CELL_TET = 0, /**< 4 vertices */
    AXB_CELL_VOXEL    /**< 8 vertices in VTK/XDMF hexahedron order: the inner face (r0) counter-
                           clockwise seen from outside, then the outer face (r1) in the same order */
} axb_cell_type;

/** Vertices per cell of each type (4, 8). */
int axb_cell_nvert(axb_cell_type t);

typedef struct axb_invmesh {
    axb_cell_type type;
    int64_t nvert; /**< vertices */
    int64_t ncell; /**< cells */
    double *vert;  /**< [nvert][3] x, y, z (m) */
    int64_t *cell; /**< [ncell][axb_cell_nvert(type)] 0-based vertex indices */
    double *voxel; /**< voxels only: [ncell][6] r0, r1 (m), colatitude c0 < c1, longitude
                             l0 < l1 (radians); NULL for tetrahedra */
} axb_invmesh;

/** A regular voxel grid in geocentric coordinates (degrees, km). Counts are cells per axis. */
typedef struct axb_voxel_grid {
    double lat_min, lat_max;           /**< -90 <= lat_min < lat_max <= 90 */
    double lon_min, lon_max;           /**< lon_min < lon_max, lon_max - lon_min <= 360 */
    double depth_min_km, depth_max_km; /**< 0 <= depth_min < depth_max < radius */
    int64_t nlat, nlon, ndepth;
} axb_voxel_grid;

/** Builds the voxel cells of @p g on a sphere of @p radius_m (the database's planet radius). */
AXB_NODISCARD axb_status axb_invmesh_voxels(const axb_voxel_grid *g, double radius_m, axb_invmesh *out, axb_error *err);

/** Sigloch/Nolet tetrahedral mesh: @p vertices holds "3", the vertex count, then x y z per line;
 *  @p facets the cell count, then four 0-based vertex indices per line. Coordinates whose largest
 *  magnitude is below 1e4 are taken as km (as MC Kernel does), others as m. */
AXB_NODISCARD axb_status axb_read_tet_mesh(const char *vertices, const char *facets, axb_invmesh *out, axb_error *err);

/** Abaqus/Cubit `.inp`: `*NODE` lines "id, x, y, z" and `*ELEMENT, TYPE=C3D4` lines "id, n1, n2,
 *  n3, n4" (node ids as written, any order). Other element types are refused. Units as above. */
AXB_NODISCARD axb_status axb_read_abaqus_mesh(const char *path, axb_invmesh *out, axb_error *err);

/** Gmsh `.msh` 4.1 ASCII: the 4-node tetrahedra (element type 4); points, lines and triangles
 *  (boundaries) are skipped, other 3-D elements and binary files refused. Units as above. */
AXB_NODISCARD axb_status axb_read_gmsh_mesh(const char *path, axb_invmesh *out, axb_error *err);

/** Checks every cell: vertex indices in range, tetrahedra not degenerate (volume above 1e-9 of
 *  the cube of their longest edge), coordinates finite. Names the first bad cell. Readers call it. */
AXB_NODISCARD axb_status axb_invmesh_check(const axb_invmesh *m, axb_error *err);

/** Volume of cell @p c (m³): |det|/6 for tetrahedra, the exact spherical shell sector for voxels. */
double axb_invmesh_cell_volume(const axb_invmesh *m, int64_t c);

/** Maps a point @p q of the unit cube [0,1)³ to a point @p x of cell @p c, uniformly in volume
 *  (a quasi-random q gives quasi-random points in the cell). For tetrahedra also returns the
 *  barycentric weights (the vertices' linear hat functions) in @p w[4] if @p w is not NULL. */
void axb_invmesh_map_point(const axb_invmesh *m, int64_t c, const double q[3], double x[3], double *w);

/** Centre of cell @p c: vertex mean (tetrahedra); for voxels the point at mid radius, mid
 *  colatitude and mid longitude. */
void axb_invmesh_cell_centre(const axb_invmesh *m, int64_t c, double x[3]);

/** Whether point @p x (m) lies in cell @p c (boundary included). */
bool axb_invmesh_contains(const axb_invmesh *m, int64_t c, const double x[3]);
void axb_invmesh_free(axb_invmesh *m);

#ifdef __cplusplus
}
#endif
#endif

/* The names of AxiSEM's and Instaseis' database formats (reference notes §1.2-1.7), spelled once
 * for the readers (db_*.c) and the writers (*_write.c): a typo in either would make a file the
 * other side cannot read. String literals, so they concatenate into paths ("/" AXB_NC_GRP_MESH
 * "/" AXB_NC_MESH_S). */
#ifndef AXB_IO_DB_NAMES_H
#define AXB_IO_DB_NAMES_H

/* files */
#define AXB_NC_FILE_ORIGINAL "ordered_output.nc4"
#define AXB_NC_FILE_MERGED "merged_output.nc4"
#define AXB_NC_FILE_AXISEM "axisem_output.nc4" /* older AxiSEM name of the original layout */

/* groups */
#define AXB_NC_GRP_MESH "Mesh"
#define AXB_NC_GRP_SNAPSHOTS "Snapshots"

/* dimensions */
#define AXB_NC_DIM_POINTS "gllpoints_all"
#define AXB_NC_DIM_SNAPSHOTS "snapshots"
#define AXB_NC_DIM_ELEMENTS "elements"
#define AXB_NC_DIM_CONTROL "control_points"
#define AXB_NC_DIM_NPOL "npol"
#define AXB_NC_DIM_IPOL "ipol"
#define AXB_NC_DIM_JPOL "jpol"
#define AXB_NC_DIM_NVARS "nvars"

/* element data of the merged layout: (elements, nvars, jpol, ipol, snapshots) */
#define AXB_NC_VAR_MERGED "MergedSnapshots"
/* axibulk's per-element checksums of it: uint32 (elements), CRC-32 of each element's block */
#define AXB_NC_VAR_MERGED_CRC "MergedChecksums"
#define AXB_NC_ATT_CRC_ALGORITHM "algorithm"
#define AXB_NC_CRC_ALGORITHM "crc32 of the float32 little-endian bytes of each element block of MergedSnapshots"

/* source time function: in /Snapshots (original), at the root (merged) */
#define AXB_NC_VAR_STF "stf_dump"
#define AXB_NC_VAR_STF_D "stf_d_dump"

/* snapshot variables of the original layout, in the order of element blocks */
#define AXB_NC_DISP_S "disp_s"
#define AXB_NC_DISP_P "disp_p"
#define AXB_NC_DISP_Z "disp_z"
#define AXB_NC_STRAIN_DSUS "strain_dsus"
#define AXB_NC_STRAIN_DSUZ "strain_dsuz"
#define AXB_NC_STRAIN_DPUP "strain_dpup"
#define AXB_NC_STRAIN_DSUP "strain_dsup"
#define AXB_NC_STRAIN_DZUP "strain_dzup"
#define AXB_NC_STRAIN_TRACE "straintrace"

/* /Mesh variables */
#define AXB_NC_MESH_S "mesh_S"
#define AXB_NC_MESH_Z "mesh_Z"
#define AXB_NC_MESH_MU "mesh_mu"
/* the background model at the stored points (SI units) */
#define AXB_NC_MESH_VP "mesh_vp"
#define AXB_NC_MESH_VS "mesh_vs"
#define AXB_NC_MESH_RHO "mesh_rho"
#define AXB_NC_MESH_LAMBDA "mesh_lambda"
#define AXB_NC_MESH_XI "mesh_xi"
#define AXB_NC_MESH_PHI "mesh_phi"
#define AXB_NC_MESH_ETA "mesh_eta"
#define AXB_NC_MESH_SEM "sem_mesh"
#define AXB_NC_MESH_FEM "fem_mesh"
#define AXB_NC_MESH_ELTYPE "eltype"
#define AXB_NC_MESH_AXIS "axis"
#define AXB_NC_MESH_MIDPOINT "midpoint_mesh"
#define AXB_NC_MESH_MP_S "mp_mesh_S"
#define AXB_NC_MESH_MP_Z "mp_mesh_Z"
#define AXB_NC_MESH_GLL "gll"
#define AXB_NC_MESH_GLJ "glj"
#define AXB_NC_MESH_G0 "G0"
#define AXB_NC_MESH_G1 "G1"
#define AXB_NC_MESH_G2 "G2"

/* global attributes the readers interpret (the writers set these and more) */
#define AXB_NC_ATT_FILE_VERSION "file version"
#define AXB_NC_ATT_DUMP "dump type (displ_only, displ_velo, fullfields)"
#define AXB_NC_ATT_NPOL "npol"
#define AXB_NC_ATT_NDUMPS "number of strain dumps"
#define AXB_NC_ATT_NPOINTS "npoints"
#define AXB_NC_ATT_NELEM "nelem_kwf_global"
#define AXB_NC_ATT_DT "strain dump sampling rate in sec"
#define AXB_NC_ATT_AMPLITUDE "scalar source magnitude"
#define AXB_NC_ATT_SHIFT "source shift factor in sec"
#define AXB_NC_ATT_SHIFT_SAMPLES "source shift factor for deltat_coarse"
#define AXB_NC_ATT_RADIUS "planet radius"
#define AXB_NC_ATT_RMIN "kernel wavefield rmin"
#define AXB_NC_ATT_RMAX "kernel wavefield rmax"
#define AXB_NC_ATT_COLATMIN "kernel wavefield colatmin"
#define AXB_NC_ATT_COLATMAX "kernel wavefield colatmax"
#define AXB_NC_ATT_PERIOD "dominant source period"
#define AXB_NC_ATT_DEPTH "source depth in km"
#define AXB_NC_ATT_STF "source time function"
#define AXB_NC_ATT_MODEL "background model"
#define AXB_NC_ATT_EXTERNAL_MODEL "external model name"
#define AXB_NC_ATT_ATTENUATION "attenuation"
#define AXB_NC_ATT_EXCITATION "excitation type"

#endif

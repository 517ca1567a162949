/* Checked HDF5 creation helpers for the output writers. */
#include "io/output/out_internal.h"

#include <string.h>

#include "io/hdf5/h5util.h"

axb_status axb_h5out_dataset(hid_t loc, const char *name, hid_t type, int rank, const hsize_t *dims, hid_t *out,
                             axb_error *err)
{
    *out = H5I_INVALID_HID;
    hid_t space = H5Screate_simple(rank, dims, NULL);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    hid_t id = H5I_INVALID_HID;
    if (space >= 0 && dcpl >= 0 && H5Pset_layout(dcpl, H5D_CONTIGUOUS) >= 0 &&
        H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_EARLY) >= 0 && H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER) >= 0)
        id = H5Dcreate2(loc, name, type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    axb_status st = id < 0 ? axb_h5_error(err, "cannot create dataset '%s'", name) : AXB_OK;
    if (dcpl >= 0) H5Pclose(dcpl);
    if (space >= 0) H5Sclose(space);
    *out = id;
    return st;
}

axb_status axb_h5out_group(hid_t loc, const char *name, axb_error *err)
{
    hid_t g = H5Gcreate2(loc, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (g < 0) return axb_h5_error(err, "cannot create group '%s'", name);
    H5Gclose(g);
    return AXB_OK;
}

/* A scalar attribute stored as @p ftype, converted from @p mtype. */
static axb_status attr_write(hid_t loc, const char *name, hid_t ftype, hid_t mtype, const void *buf, axb_error *err)
{
    hid_t space = H5Screate(H5S_SCALAR);
    hid_t a = space >= 0 ? H5Acreate2(loc, name, ftype, space, H5P_DEFAULT, H5P_DEFAULT) : -1;
    herr_t rc = a >= 0 ? H5Awrite(a, mtype, buf) : -1;
    axb_status st = rc < 0 ? axb_h5_error(err, "cannot write attribute '%s'", name) : AXB_OK;
    if (a >= 0) H5Aclose(a);
    if (space >= 0) H5Sclose(space);
    return st;
}

axb_status axb_h5out_attr_str(hid_t loc, const char *name, const char *value, axb_error *err)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    if (t < 0 || H5Tset_size(t, H5T_VARIABLE) < 0 || H5Tset_cset(t, H5T_CSET_UTF8) < 0) {
        if (t >= 0) H5Tclose(t);
        return axb_h5_error(err, "cannot make a string type for attribute '%s'", name);
    }
    axb_status st = attr_write(loc, name, t, t, &value, err);
    H5Tclose(t);
    return st;
}

axb_status axb_h5out_attr_fixstr(hid_t loc, const char *name, const char *value, axb_error *err)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    if (t < 0 || H5Tset_size(t, strlen(value) + 1) < 0 || H5Tset_strpad(t, H5T_STR_NULLPAD) < 0 ||
        H5Tset_cset(t, H5T_CSET_ASCII) < 0) {
        if (t >= 0) H5Tclose(t);
        return axb_h5_error(err, "cannot make a string type for attribute '%s'", name);
    }
    axb_status st = attr_write(loc, name, t, t, value, err);
    H5Tclose(t);
    return st;
}

axb_status axb_h5out_attr_double(hid_t loc, const char *name, double value, axb_error *err)
{
    return attr_write(loc, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &value, err);
}

/* ASDF specifies little-endian int64 for its time stamps; the value is converted from native. */
axb_status axb_h5out_attr_int64(hid_t loc, const char *name, int64_t value, axb_error *err)
{
    return attr_write(loc, name, H5T_STD_I64LE, H5T_NATIVE_INT64, &value, err);
}

axb_status axb_h5out_write_root(const axb_output *o, hid_t dset, hid_t memtype, const void *buf, axb_error *err)
{
    hid_t fspace = H5Dget_space(dset);
    hid_t mspace = fspace >= 0 ? H5Scopy(fspace) : -1;
    herr_t rc = mspace >= 0 ? 0 : -1;
    if (rc >= 0 && o->rank != 0) rc = H5Sselect_none(fspace) < 0 || H5Sselect_none(mspace) < 0 ? -1 : 0;
    if (rc >= 0) rc = H5Dwrite(dset, memtype, mspace, fspace, o->dxpl_coll, buf);
    axb_status st = AXB_OK;
    if (rc < 0) {
        /* the reason first: any later HDF5 call clears HDF5's error stack */
        st = axb_h5_error(err, "cannot write");
        char name[256] = "?";
        H5Iget_name(dset, name, sizeof name);
        axb_error_prefix(err, "dataset '%s'", name);
    }
    if (mspace >= 0) H5Sclose(mspace);
    if (fspace >= 0) H5Sclose(fspace);
    return st;
}

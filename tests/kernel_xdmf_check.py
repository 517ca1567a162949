"""Reads a kernel file's XDMF description with ParaView's XDMF readers and prints what ParaView
sees (cell and point counts, every cell and point array), or compares it exactly with a file of
expected values (written by tests/kernel_xdmf_fixture.c):

    pvpython --force-offscreen-rendering kernel_xdmf_check.py FILE.xdmf [EXPECTED] [--reader NAME]

Without --reader both readers are used: Xdmf3ReaderS (what ParaView picks when a user opens the
file) and XDMFReader (the older Xdmf2 reader). Nothing is rendered. Exit status 1 on a mismatch.

EXPECTED, one item per line: "cells N", "vertices N", "cell_type T" (VTK: 10 tetra, 12 hexahedron),
"xyz x y z ...", "connectivity i j ...", "cell NAME v ..." and "node NAME v ..." for every array.
Numbers are written with 17 significant digits, so float64 values compare with tolerance 0.
"""
import argparse
import sys

from paraview import servermanager, simple

READERS = ("Xdmf3ReaderS", "XDMFReader")
VTK_DOUBLE = 11


def read(path, reader):
    if reader == "XDMFReader":
        src = simple.XDMFReader(FileNames=[path])
    else:
        src = simple.Xdmf3ReaderS(FileName=[path])
    src.UpdatePipeline()
    data = servermanager.Fetch(src)
    # a composite output holds the one grid as its first leaf
    while data is not None and data.IsA("vtkMultiBlockDataSet"):
        data = data.GetBlock(0)
    # the fetched arrays may share memory with the reader's output: it stays until they are read
    return src, data


def values(arr):
    nc = arr.GetNumberOfComponents()
    return [arr.GetComponent(t, c) for t in range(arr.GetNumberOfTuples()) for c in range(nc)]


def arrays(data):
    out = {}
    for center, fd in (("cell", data.GetCellData()), ("node", data.GetPointData())):
        for i in range(fd.GetNumberOfArrays()):
            arr = fd.GetArray(i)
            out[(center, arr.GetName())] = arr
    return out


def connectivity(data):
    ids = []
    for c in range(data.GetNumberOfCells()):
        cell = data.GetCell(c)
        ids.extend(cell.GetPointId(k) for k in range(cell.GetNumberOfPoints()))
    return ids


def load_expected(path):
    exp = {"arrays": {}}
    with open(path) as f:
        for line in f:
            key, *rest = line.split()
            if key in ("cell", "node"):
                exp["arrays"][(key, rest[0])] = [float(v) for v in rest[1:]]
            elif key == "xyz":
                exp["xyz"] = [float(v) for v in rest]
            elif key == "connectivity":
                exp["connectivity"] = [int(v) for v in rest]
            else:
                exp[key] = int(rest[0])
    return exp


def first_difference(got, want):
    if len(got) != len(want):
        return "%d values instead of %d" % (len(got), len(want))
    for i, (g, w) in enumerate(zip(got, want)):
        if g != w:
            return "value %d is %r instead of %r" % (i, g, w)
    return None


def compare(data, exp, label):
    problems = []

    def need(ok, text):
        if not ok:
            problems.append("%s: %s" % (label, text))

    need(data.GetNumberOfCells() == exp["cells"], "%d cells instead of %d" % (data.GetNumberOfCells(), exp["cells"]))
    need(data.GetNumberOfPoints() == exp["vertices"],
         "%d vertices instead of %d" % (data.GetNumberOfPoints(), exp["vertices"]))
    types = {data.GetCellType(c) for c in range(data.GetNumberOfCells())}
    need(types == {exp["cell_type"]}, "cell types %s instead of {%d}" % (sorted(types), exp["cell_type"]))
    need(data.GetPoints().GetDataType() == VTK_DOUBLE, "coordinates are not float64")
    diff = first_difference(values(data.GetPoints().GetData()), exp["xyz"])
    need(diff is None, "coordinates: %s" % diff)
    diff = first_difference(connectivity(data), exp["connectivity"])
    need(diff is None, "connectivity: %s" % diff)
    got = arrays(data)
    for key, want in exp["arrays"].items():
        arr = got.get(key)
        if arr is None:
            need(False, "no %s array '%s' (ParaView has %s)" % (key[0], key[1], sorted(got)))
            continue
        if key[1] != "points":
            need(arr.GetDataType() == VTK_DOUBLE, "%s array '%s' is not float64" % key)
        diff = first_difference(values(arr), want)
        need(diff is None, "%s array '%s': %s" % (key[0], key[1], diff))
    extra = sorted(k for k in got if k not in exp["arrays"] and not k[1].startswith("vtk"))
    need(not extra, "arrays nobody wrote: %s" % extra)
    return problems


def show(data, label):
    print("%s: %d cells, %d vertices, cell types %s" % (label, data.GetNumberOfCells(), data.GetNumberOfPoints(),
                                                       sorted({data.GetCellType(c)
                                                               for c in range(data.GetNumberOfCells())})))
    for (center, name), arr in sorted(arrays(data).items()):
        print("  %s %s: %s" % (center, name, " ".join(repr(v) for v in values(arr))))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("xdmf")
    ap.add_argument("expected", nargs="?")
    ap.add_argument("--reader", choices=READERS, action="append")
    args = ap.parse_args()
    exp = load_expected(args.expected) if args.expected else None
    problems = []
    for reader in args.reader or READERS:
        label = "%s (%s)" % (args.xdmf, reader)
        src, data = read(args.xdmf, reader)
        if data is None or not data.IsA("vtkUnstructuredGrid"):
            problems.append("%s: no unstructured grid read" % label)
        elif exp is None:
            show(data, label)
        else:
            found = compare(data, exp, label)
            problems.extend(found)
            if not found:
                print("%s: %d cells, %d vertices, %d arrays identical" %
                      (label, exp["cells"], exp["vertices"], len(exp["arrays"])))
        simple.Delete(src)
    for p in problems[:20]:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

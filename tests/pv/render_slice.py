"""Renders a plane slice through one kernel of an axibulk kernel file to a PNG, offscreen:

    pvpython --force-offscreen-rendering render_slice.py FILE.xdmf COLUMN OUT.png
             [--normal NX NY NZ] [--origin X Y Z] [--limit L] [--size W H] [--title TEXT] [--density]

The plane goes through the centre of the mesh's bounding box (or --origin, m, Earth-centred) with
the given normal (default 0 0 1), and is seen along the normal. Colours: a diverging map centred
on 0, from -L to +L, L = the largest |value| on the slice unless --limit is given, so the sign of
the sensitivity reads at a glance; a colour bar titled with the column (or --title). COLUMN is a
kernel column ("P30_vp"), an error column ("P30_vp_error"), "points" or "volume"; cell or vertex
values alike.

Debian's ParaView renders through GLX only; without a display use
    xvfb-run -a -s "-noreset -screen 0 1280x1024x24" pvpython render_slice.py ...
"""
import argparse
import math
import sys

from paraview import simple


def parse():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("xdmf")
    ap.add_argument("column")
    ap.add_argument("png")
    ap.add_argument("--normal", type=float, nargs=3, default=[0.0, 0.0, 1.0], metavar=("NX", "NY", "NZ"))
    ap.add_argument("--origin", type=float, nargs=3, metavar=("X", "Y", "Z"))
    ap.add_argument("--limit", type=float, help="colour range -L..L (default: largest |value| on the slice)")
    ap.add_argument("--size", type=int, nargs=2, default=[1200, 900], metavar=("W", "H"))
    ap.add_argument("--title", help="colour bar title (default: the column)")
    ap.add_argument("--density", action="store_true",
                    help="show the cell value divided by the cell volume (kernel density, for cell values): "
                         "cell integrals of unequal cells are not comparable by colour")
    args = ap.parse_args()
    norm = math.sqrt(sum(n * n for n in args.normal))
    if norm == 0:
        ap.error("--normal must not be the zero vector")
    args.normal = [n / norm for n in args.normal]
    return args


def association(reader, column):
    if column in reader.CellData.keys():
        return "CELLS"
    if column in reader.PointData.keys():
        return "POINTS"
    names = sorted(set(reader.CellData.keys()) | set(reader.PointData.keys()))
    sys.exit("%s: no array '%s' (there are: %s)" % (reader.FileName[0], column, ", ".join(names)))


def view_up(normal):
    """Any unit vector perpendicular to the normal; the z axis projected when it can be, so north
    stays up for slices that contain it."""
    for guess in ([0.0, 0.0, 1.0], [0.0, 1.0, 0.0]):
        d = sum(g * n for g, n in zip(guess, normal))
        up = [g - d * n for g, n in zip(guess, normal)]
        length = math.sqrt(sum(u * u for u in up))
        if length > 1e-6:
            return [u / length for u in up]
    return [1.0, 0.0, 0.0]


def main():
    args = parse()
    reader = simple.Xdmf3ReaderS(FileName=[args.xdmf])
    reader.UpdatePipeline()
    assoc = association(reader, args.column)
    b = reader.GetDataInformation().GetBounds()
    source = reader
    if args.density:
        if assoc != "CELLS":
            sys.exit("--density needs a cell-value column")
        source = simple.Calculator(Input=reader, AttributeType="Cell Data",
                                   ResultArrayName=args.column + "_density",
                                   Function="%s/volume" % args.column)
        source.UpdatePipeline()
        args.column += "_density"
    origin = args.origin or [(b[0] + b[1]) / 2, (b[2] + b[3]) / 2, (b[4] + b[5]) / 2]

    cut = simple.Slice(Input=source)
    cut.SliceType = "Plane"
    cut.SliceType.Origin = origin
    cut.SliceType.Normal = args.normal
    cut.UpdatePipeline()
    info = cut.GetDataInformation()
    if info.GetNumberOfCells() == 0:
        sys.exit("%s: the plane through %s with normal %s misses the mesh" % (args.xdmf, origin, args.normal))
    data = cut.CellData if assoc == "CELLS" else cut.PointData
    lo, hi = data[args.column].GetRange()
    limit = args.limit if args.limit else max(abs(lo), abs(hi))
    if limit == 0 or not math.isfinite(limit):
        limit = 1.0  # an all-zero kernel still gets a readable (if uniform) picture

    view = simple.CreateView("RenderView")
    view.ViewSize = list(args.size)
    view.OrientationAxesVisibility = 0
    if hasattr(view, "UseColorPaletteForBackground"):
        view.UseColorPaletteForBackground = 0
    view.Background = [1.0, 1.0, 1.0]
    shown = simple.Show(cut, view)
    simple.ColorBy(shown, (assoc, args.column))
    lut = simple.GetColorTransferFunction(args.column)
    lut.ApplyPreset("Cool to Warm", True)
    lut.AutomaticRescaleRangeMode = "Never"
    lut.RescaleTransferFunction(-limit, limit)
    shown.SetScalarBarVisibility(view, True)
    bar = simple.GetScalarBar(lut, view)
    bar.Title = args.title or args.column
    bar.ComponentTitle = ""
    bar.TitleColor = bar.LabelColor = [0.0, 0.0, 0.0]
    bar.RangeLabelFormat = "%-#.3g"

    # context: the mesh's outline in grey
    outline = simple.Show(simple.Outline(Input=reader), view)
    outline.AmbientColor = outline.DiffuseColor = [0.5, 0.5, 0.5]

    dist = max(b[1] - b[0], b[3] - b[2], b[5] - b[4]) * 3
    view.CameraFocalPoint = origin
    view.CameraPosition = [o + dist * n for o, n in zip(origin, args.normal)]
    view.CameraViewUp = view_up(args.normal)
    view.CameraParallelProjection = 1  # distances on the slice keep their proportions
    view.ResetCamera(False)
    simple.Render(view)
    simple.SaveScreenshot(args.png, view, ImageResolution=list(args.size))
    print("%s: %s on the plane through (%.6g, %.6g, %.6g) normal (%.3g, %.3g, %.3g), colours -%.3g..%.3g" %
          (args.png, args.column, origin[0], origin[1], origin[2], args.normal[0], args.normal[1], args.normal[2],
           limit, limit))
    simple.Delete(view)
    return 0


if __name__ == "__main__":
    sys.exit(main())

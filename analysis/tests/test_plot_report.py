"""plot and report: real images, a self-contained page."""
import base64
import html.parser
import re
import xml.etree.ElementTree as ET

from conftest import assert_error, assert_ok, run_cli

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
EXPECTED = ("latency", "bw", "allreduce_busbw", "allreduce_time")


def _png_size(data):
    assert data[:8] == PNG_SIGNATURE
    assert data[12:16] == b"IHDR"
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


def _colourful_pixels(path):
    """Pixels that are clearly coloured (curves, bands), not white, grey or black."""
    import matplotlib.image as mi
    a = mi.imread(path)[..., :3]
    spread = a.max(axis=2) - a.min(axis=2)
    return int((spread > 0.25).sum())


def test_plot_png_and_svg(results, tmp_path):
    out = tmp_path / "plots"
    p = run_cli("plot", results.shm, results.tcp, "-o", out)
    assert_ok(p)
    written = p.stdout.split()
    for name in EXPECTED:
        png, svg = out / (name + ".png"), out / (name + ".svg")
        assert str(png) in written and str(svg) in written
        data = png.read_bytes()
        w, h = _png_size(data)
        assert w >= 600 and h >= 400, (name, w, h)
        assert len(data) > 20000, (name, len(data))
        # Two series drawn in colour: a few thousand coloured pixels at least.
        assert _colourful_pixels(str(png)) > 2000, name
        assert svg.stat().st_size > 20000
        root = ET.parse(str(svg)).getroot()
        assert root.tag.endswith("svg")
        assert len(root.findall(".//{http://www.w3.org/2000/svg}path")) > 20


def test_plot_line_rate_drawn(results, tmp_path):
    """shm.h5 has --line-rate 100G: the bw plot reaches up to it (a dashed line at 100 Gb/s)
    while without a line rate the axis ends near the data."""
    import matplotlib
    matplotlib.use("Agg")
    from fabricbench_analysis import load, plot
    figs = {name: fig for name, _, fig in plot.figures(load([results.shm]))}
    ax = figs["bw"].axes[0]
    assert ax.get_yscale() == "log" and ax.get_xscale() == "log"
    hlines = [ln for ln in ax.get_lines() if ln.get_linestyle() == "--"]
    assert len(hlines) == 1 and hlines[0].get_ydata()[0] == 100.0
    assert "Gb/s" in ax.get_ylabel() and "bytes" in ax.get_xlabel()
    figs = {name: fig for name, _, fig in plot.figures(load([results.tcp]))}
    assert not [ln for ln in figs["bw"].axes[0].get_lines() if ln.get_linestyle() == "--"]
    lat = figs["latency"].axes[0]
    assert "\u00b5s" in lat.get_ylabel() and lat.get_yscale() == "log"
    assert lat.collections, "no p99 band"


def _legend(fig):
    return [t.get_text() for t in fig.axes[0].get_legend().get_texts()]


def test_plot_line_rate_unknown(results):
    """tcp.h5 has no line rate: its legend and caption say so, and a caption mentions the
    dashed line only when one is drawn."""
    import matplotlib
    matplotlib.use("Agg")
    from fabricbench_analysis import load, plot
    rate_figs = ("bw", "allreduce_busbw")
    hint = "(set with fabricbench run --line-rate)"

    t = load([results.tcp])
    lab = t.labels()[0]
    got = {name: (cap, fig) for name, cap, fig in plot.figures(t)}
    for name in rate_figs:
        cap, fig = got[name]
        assert "dashed" not in cap, cap
        assert "line rate unknown for %s %s" % (lab, hint) in cap, cap
        assert "line rate unknown for %s %s" % (lab, hint) in _legend(fig), _legend(fig)

    t = load([results.shm])
    got = {name: (cap, fig) for name, cap, fig in plot.figures(t)}
    for name in rate_figs:
        cap, fig = got[name]
        assert "dashed: the line rate recorded with the run" in cap and "unknown" not in cap
        assert not [x for x in _legend(fig) if "unknown" in x], _legend(fig)

    t = load([results.shm, results.tcp])
    shm, tcp = t.labels()
    got = {name: (cap, fig) for name, cap, fig in plot.figures(t)}
    for name in rate_figs:
        cap, fig = got[name]
        assert "dashed: the line rate recorded with the run" in cap, cap
        assert "line rate unknown for %s %s" % (tcp, hint) in cap, cap
        assert "unknown for %s " % shm not in cap, cap
        dashed = [ln for ln in fig.axes[0].get_lines() if ln.get_linestyle() == "--"]
        assert len(dashed) == 1, name
        assert "line rate unknown for %s %s" % (tcp, hint) in _legend(fig), _legend(fig)


def test_plot_unwritable_output(results, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert_error(run_cli("plot", results.shm, "-o", blocker / "sub"), 3, "cannot create")


class _Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.imgs, self.links, self.scripts, self.h2 = [], [], [], []
        self._in_h2 = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "img":
            self.imgs.append(a.get("src", ""))
        if tag in ("link", "iframe", "object", "embed"):
            self.links.append(tag)
        if tag == "script":
            self.scripts.append(a)
        self._in_h2 = tag == "h2"

    def handle_data(self, data):
        if self._in_h2:
            self.h2.append(data)
            self._in_h2 = False


def test_report_self_contained(results, tmp_path):
    out = tmp_path / "report.html"
    p = run_cli("report", results.shm, results.tcp, "--baseline", results.shm, "-o", out)
    assert_ok(p)
    text = out.read_text(encoding="utf-8")
    page = _Page()
    page.feed(text)
    assert page.h2 == ["Summary", "Comparison", "Plots", "Baseline check", "Runs", "Method"]
    assert not page.links and not page.scripts
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:|//|file:)""", text)
    assert "url(" not in text
    assert len(page.imgs) == len(EXPECTED)
    for src in page.imgs:
        assert src.startswith("data:image/png;base64,")
        w, h = _png_size(base64.b64decode(src.split(",", 1)[1]))
        assert w >= 600 and h >= 400
    for word in ("lat p50 us", "vs ", "ratio", "FAIL", "PASS", "busbw_GBps", "Noise."):
        assert word in text, word


def test_report_single_file(results, tmp_path):
    out = tmp_path / "one.html"
    p = run_cli("report", results.tcp, "-o", out)
    assert_ok(p)
    text = out.read_text(encoding="utf-8")
    assert "<h2>Comparison</h2>" not in text and "<h2>Plots</h2>" in text


def test_report_nothing_in_common_still_reports(results, tmp_path):
    out = tmp_path / "nc.html"
    p = run_cli("report", results.only_latency, results.only_allreduce, "-o", out)
    assert_ok(p)
    assert "nothing in common" in out.read_text(encoding="utf-8")


def test_report_interrupted_says_so(results, tmp_path):
    out = tmp_path / "int.html"
    p = run_cli("report", results.interrupted, "-o", out)
    assert_ok(p)
    assert "interrupted" in p.stderr
    text = out.read_text(encoding="utf-8")
    assert "was interrupted (SIGINT)" in text

"""topogen.output.save_figure: one way to write a figure, atomic and byte-reproducible."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

from topogen.output import save_figure  # noqa: E402


def _fig():
    fig, ax = plt.subplots(figsize=(3, 2))
    ax.plot([0, 1, 2], [1, 3, 2], label="curve")
    ax.set_xlabel("accepted traffic")
    ax.legend()
    return fig


@pytest.mark.parametrize("suffix", ["pdf", "svg", "png"])
def test_same_figure_same_bytes(tmp_path, suffix):
    a, b = tmp_path / f"a.{suffix}", tmp_path / f"b.{suffix}"
    save_figure(_fig(), a)
    save_figure(_fig(), b)
    assert a.read_bytes() == b.read_bytes()
    assert not list(tmp_path.glob(".*tmp"))  # no temporary left behind


def test_pdf_has_no_creation_date_and_svg_keeps_text(tmp_path):
    save_figure(_fig(), tmp_path / "f.pdf")
    assert b"/CreationDate" not in (tmp_path / "f.pdf").read_bytes()
    save_figure(_fig(), tmp_path / "f.svg")
    svg = (tmp_path / "f.svg").read_text()
    assert "accepted traffic" in svg and "<dc:date>" not in svg


def test_figure_is_closed(tmp_path):
    fig = _fig()
    save_figure(fig, tmp_path / "f.png")
    assert not plt.fignum_exists(fig.number)

"""SST's output on several MPI ranks: ``mpirun`` forwards each rank's lines as they come, so
``offered_load``'s table (printed by the rank of endpoint 0) and the completion line and
summary (printed by rank 0) reach the log interleaved.  The table is read whole wherever
its lines come; a single rank's log stays read strictly."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import pytest

from topogen.drivers import sst as sd
from topogen.drivers.sst_output import parse_stdout
from topogen.errors import FormatError

from . import fakes
from .test_sst_driver import bundle, fake_sst

HEAD = "  Offered   Average\n"
SUB = "    Load    Latency\n"
ROWS = ["     0.10      47.8352 ns\n", "     0.30      52.125 ns*\n", "     0.00             0 s\n"]
DONE = "Simulation is complete, simulated time: 7.4648 us\n"
SUMMARY = ("\n\nSimulation Summary:\n  Ranks:                 2\n  Simulated time:        7.4648 us\n\n\n"
           "Simulation Resource Information:\n  Max Output Blocks:               0 blocks\n"
           "  Max Resident Set Size:           60.2685 MB\n")
EXPECTED = [(0.10, 47.8352, False), (0.30, 52.125, True), (0.0, 0.0, False)]

# The orders the two ranks' lines reached real logs in (a 4x4 torus, endpoint 0 on rank 1,
# on a machine with load average 6-7), and one more with rank 0's lines between the rows.
INTERLEAVED = {
    "table after the summary": HEAD + DONE + SUMMARY + SUB + "".join(ROWS) + "\n",
    "table after the completion line": HEAD + DONE + SUB + "".join(ROWS) + "\n" + SUMMARY,
    "summary between the rows": HEAD + SUB + ROWS[0] + DONE + "\n\n" + ROWS[1] + SUMMARY + ROWS[2] + "\n",
}


@pytest.mark.parametrize("order", sorted(INTERLEAVED))
def test_table_of_another_rank_is_read_whole(order):
    text = INTERLEAVED[order]
    out = parse_stdout(text, ranks=2)
    assert out.loads == EXPECTED
    assert out.complete and out.sim_time_ns == pytest.approx(7464.8) and not out.errors and not out.fatal
    # one rank's log is read as one stream: its table ends at its blank line or the completion line
    assert len(parse_stdout(text).loads) < len(EXPECTED)


def test_in_order_output_reads_the_same_on_one_rank_and_several():
    text = HEAD + SUB + "".join(ROWS) + "\n" + DONE + SUMMARY
    assert parse_stdout(text).loads == parse_stdout(text, ranks=2).loads == EXPECTED


def test_a_malformed_result_line_among_other_ranks_lines_is_still_an_error():
    bad = HEAD + DONE + SUMMARY + SUB + "     0.10  lots\n\n"
    with pytest.raises(FormatError, match="malformed offered_load result line"):
        parse_stdout(bad, ranks=2)
    # other ranks' lines that only start with a number (a backtrace frame) are not result lines
    frames = HEAD + SUB + ROWS[0] + "    0 : sst(+0x1234)\n   12 : libc.so.6(+0x29d90)\n" + DONE
    assert parse_stdout(frames, ranks=2).loads == EXPECTED[:1]


_TWO_RANKS = r"""#!{python}
# Stand-in for mpirun -np K: runs the command once, then writes its output the way mpirun
# forwarded two ranks' writes on a busy machine: endpoint 0's rank writes the table, rank 0
# the rest and SST's summary, and rank 0's lines come between two writes of the table (after
# its header, or inside a result line).  As SST, whose embedded Python makes C's stdout
# unbuffered when PYTHONUNBUFFERED is set, the table's rank writes a result line and its
# newline in two pieces then; otherwise every line in one.
import os, subprocess, sys
argv = sys.argv[3:]
if argv[0] == "--oversubscribe":
    argv = argv[1:]
proc = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
lines = proc.stdout.splitlines(keepends=True)
start = next(i for i, s in enumerate(lines) if s.strip().startswith("Offered"))
end = next(i for i in range(start, len(lines)) if not lines[i].strip())
table, rest = lines[start:end + 1], lines[:start] + lines[end + 1:]
writes = []
for line in table:
    row = line[:1] == " " and line.strip()[:1].isdigit()
    if row and os.environ.get("PYTHONUNBUFFERED"):
        writes += [line.rstrip("\n").rstrip("*"), line[len(line.rstrip("\n").rstrip("*")):]]
    else:
        writes.append(line)
cut = 1 if {where!r} == "after the header" else len(writes) - 2  # before the last row's newline
for piece in writes[:cut] + rest + [{summary!r}] + writes[cut:]:
    sys.stdout.write(piece)
    sys.stdout.flush()
sys.exit(proc.returncode)
"""


def two_ranks_mpirun(folder, where):
    return fakes._write(folder / "mpirun", _TWO_RANKS.format(python=sys.executable, summary=SUMMARY, where=where))


@pytest.mark.parametrize("where", ["after the header", "inside a result line"])
def test_run_on_two_ranks_reads_the_table_cut_by_rank_0(tmp_path, monkeypatch, where):
    b = bundle(tmp_path)
    monkeypatch.setenv("TOPOGEN_SST", str(fake_sst(tmp_path)))
    monkeypatch.setenv("TOPOGEN_MPIRUN", str(two_ranks_mpirun(tmp_path / "bin", where)))
    monkeypatch.setenv("PYTHONUNBUFFERED", "1")  # as on this machine, and many batch setups
    run = dict(load=[0.3, 0.5], timeout=60, generator="offered_load", out_dir=tmp_path / "out")
    one = sd.run_sst(b, ranks=1, **run)
    two = sd.run_sst(b, ranks=2, **run)
    log = open(two[0]["raw_output"]).read()
    assert log.index("Simulation Summary") < log.index("0.00")  # the table's end came after rank 0's lines
    assert [r["status"] for r in two] == [r["status"] for r in one] == ["completed", "completed"]
    assert [r["ranks"] for r in two] == [2, 2]
    for a, b_ in zip(one, two):
        assert b_["latency_avg"] == a["latency_avg"] > 0


def test_run_process_removes_variables_given_as_none(tmp_path, monkeypatch):
    from topogen.drivers.base import run_process

    monkeypatch.setenv("PYTHONUNBUFFERED", "1")
    monkeypatch.setenv("TOPOGEN_KEPT", "yes")
    script = fakes._write(tmp_path / "show", "#!/bin/sh\necho \"u=${PYTHONUNBUFFERED-unset} k=$TOPOGEN_KEPT x=$X\"\n")
    run_process([str(script)], tmp_path / "a.log", timeout=30, env={"PYTHONUNBUFFERED": None, "X": "1"})
    assert open(tmp_path / "a.log").read().strip() == "u=unset k=yes x=1"


def test_topogen_partition_puts_endpoint_0_on_rank_0():
    """The table (endpoint 0) and SST's completion line and summary (rank 0) come from one
    rank, so they reach the log in order; the parts are partition_routers' with two names
    exchanged (the same cut and balance)."""
    from topogen.drivers import sst_process as sp
    from topogen.metrics.partition import cut_links, part_weights, partition_routers

    from .test_sst_ranks import make

    import json

    for k in (2, 3, 4):
        doc = json.loads(make(Path(tempfile.mkdtemp()), "torus", dims=(4, 4)).read_text())
        n, edges, hosts = sp.bundle_graph(doc)
        theirs = partition_routers(n, edges, k, weights=[1 + h for h in hosts], seed=1)
        ours = sp.topogen_partition(doc, k)
        first = next(e["router"] for e in doc["endpoints"] if e["id"] == 0)
        assert ours[first] == 0
        assert cut_links(edges, ours) == cut_links(edges, theirs)
        assert sorted(part_weights(ours, k)) == sorted(part_weights(theirs, k))
        # one name for one part: a renaming of the parts partition_routers made
        assert len({(a, b) for a, b in zip(theirs, ours)}) == k

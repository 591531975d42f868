"""SST's output on several MPI ranks: ``mpirun`` forwards each rank's lines as they come, so
``offered_load``'s table (printed by the rank of endpoint 0) and the completion line and
summary (printed by rank 0) reach the log interleaved.  The table is read whole wherever
its lines come; a single rank's log stays read strictly."""

from __future__ import annotations

import sys

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


_TWO_RANKS = r'''#!{python}
# Stand-in for mpirun -np K: runs the command once, then writes its output the way mpirun
# forwarded two ranks' lines on a busy machine: the table's header (endpoint 0's rank),
# then the completion line and SST's summary (rank 0), then the rest of the table.
import subprocess, sys
argv = sys.argv[3:]
if argv[0] == "--oversubscribe":
    argv = argv[1:]
proc = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
lines = proc.stdout.splitlines(keepends=True)
start = next(i for i, s in enumerate(lines) if s.strip().startswith("Offered"))
end = next(i for i in range(start, len(lines)) if not lines[i].strip())
table, rest = lines[start:end + 1], lines[:start] + lines[end + 1:]
summary = {summary!r}
for part in (table[:1], rest, [summary], table[1:]):
    sys.stdout.write("".join(part))
    sys.stdout.flush()
sys.exit(proc.returncode)
'''


def two_ranks_mpirun(folder):
    return fakes._write(folder / "mpirun", _TWO_RANKS.format(python=sys.executable, summary=SUMMARY))


def test_run_on_two_ranks_reads_the_table_printed_after_the_summary(tmp_path, monkeypatch):
    b = bundle(tmp_path)
    monkeypatch.setenv("TOPOGEN_SST", str(fake_sst(tmp_path)))
    monkeypatch.setenv("TOPOGEN_MPIRUN", str(two_ranks_mpirun(tmp_path / "bin")))
    run = dict(load=[0.3, 0.5], timeout=60, generator="offered_load", out_dir=tmp_path / "out")
    one = sd.run_sst(b, ranks=1, **run)
    two = sd.run_sst(b, ranks=2, **run)
    log = open(two[0]["raw_output"]).read()
    assert log.index("Simulation Summary") < log.index("0.30") < log.index("0.50")  # the table came last
    assert [r["status"] for r in two] == [r["status"] for r in one] == ["completed", "completed"]
    assert [r["ranks"] for r in two] == [2, 2]
    for a, b_ in zip(one, two):
        assert b_["latency_avg"] == a["latency_avg"] > 0

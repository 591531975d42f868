"""``reproduce memsys-sim`` says where a point's time and memory go: CPU of building and
routing the network, CPU of the whole point, the worker's peak memory."""

from topogen.reproduce import memsys_sim as ms


def test_points_carry_their_cpu_and_memory():
    res = ms.reproduce_memsys_sim(families="torus2d,mms2", max_nodes=20, max_samples=4, workers=1)
    t = res.table
    assert len(t) == 2  # 4 x 4 torus, MMS2 q = 3 (18 nodes)
    assert (t.cpu_s >= t.setup_cpu_s).all() and (t.setup_cpu_s >= 0).all()
    assert (t.cpu_s > 0).all()  # a simulation costs CPU
    assert (t.peak_rss_mb > 10).all()  # a Python process with numpy holds more than 10 MB
    note = next(n for n in res.notes if n.startswith("Ran 2 networks"))
    assert "s of CPU in the points" in note and "peak memory of one point" in note

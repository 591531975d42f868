"""A minimal routing for driver tests: shortest-hop paths, ties to the lowest switch id.

It has the interface exporters read (``path(src, dst) -> (switches, vcs)``, ``algorithm``),
so driver tests do not depend on the routing module's internals.
"""

import numpy as np


class BFSRouting:
    algorithm = "bfs-test"

    def __init__(self, topology):
        self.topology = topology

    def path(self, src, dst):
        prev = {src: None}
        frontier = [src]
        while dst not in prev:
            nxt = []
            for v in frontier:
                for w in self.topology.neighbors(v).tolist():
                    if w not in prev:
                        prev[w] = v
                        nxt.append(w)
            frontier = nxt
        p = [dst]
        while p[-1] != src:
            p.append(prev[p[-1]])
        p.reverse()
        return np.asarray(p), np.arange(len(p) - 1)

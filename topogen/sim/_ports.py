"""Local port numbering of the switches for the separable allocator's round-robin arbiters
(:class:`~topogen.sim.network.Network`'s ``out_local`` and ``in_local``).

A round-robin arbiter grants the requester nearest at or after its pointer and moves the
pointer past the winner, so which of two ports wins a tie depends on the order in which
the switch numbers its ports.  Only the order matters: numbering a switch's ports with
gaps (BookSim gives an edge router of a mesh its unused wrap ports) gives the same grants
as numbering the same ports ``0 .. p - 1`` in the same order, which is what the simulator
does.

``hosts-first``
    BookSim ``anynet``'s numbering, the one topogen's exports give BookSim: a switch's
    hosts first, then its neighbours by increasing id (inputs and outputs alike).
``booksim-native``
    The numbering of BookSim's own network of the topology's family:
    ``kncube.cpp`` for ``mesh`` and ``torus`` (output ``2d`` to the + neighbour of
    dimension ``d``, ``2d + 1`` to the - neighbour; input ``2d`` from the + neighbour,
    ``2d + 1`` from the - neighbour; the host last).
"""

from __future__ import annotations

import numpy as np

from ..errors import ParameterError

__all__ = ["PORT_ORDERS", "local_ports", "native_port_ranks"]

#: port numberings the simulator knows (SimConfig.port_order)
PORT_ORDERS = ("hosts-first", "booksim-native")


def _kncube_ranks(topo, src, dst):
    dims = [int(x) for x in topo.params.get("dims", ())]
    if not dims or int(np.prod(dims)) != topo.num_switches:
        raise ParameterError(f"port_order='booksim-native' needs the {topo.name} generator's dims "
                             f"(got {topo.params.get('dims')!r} for {topo.num_switches} switches)")
    steps = np.cumprod([1] + dims[:-1])
    out_rank = np.full(len(src), -1, dtype=np.int64)
    in_rank = np.full(len(src), -1, dtype=np.int64)
    for d, (k, step) in enumerate(zip(dims, steps)):
        cu, cw = (src // step) % k, (dst // step) % k
        same = np.ones(len(src), dtype=bool)
        for e, (k2, step2) in enumerate(zip(dims, steps)):
            if e != d:
                same &= (src // step2) % k2 == (dst // step2) % k2
        here = same & (cu != cw)
        plus = here & (cw == (cu + 1) % k)  # w is u's + neighbour
        minus = here & ~plus
        out_rank[plus], out_rank[minus] = 2 * d, 2 * d + 1
        # at w, u is w's - neighbour when w is u's + neighbour: input 2d + 1
        in_rank[plus], in_rank[minus] = 2 * d + 1, 2 * d
    if (out_rank < 0).any():
        raise ParameterError(f"port_order='booksim-native': link {int(src[out_rank < 0][0])}-"
                             f"{int(dst[out_rank < 0][0])} of the {topo.name} is not a k-ary n-cube link")
    return out_rank, in_rank, 2 * len(dims)


#: topology name -> ranks function (out_rank, in_rank of each directed link, the hosts' rank)
_NATIVE = {"mesh": _kncube_ranks, "torus": _kncube_ranks}


def native_port_ranks(topo, src, dst):
    """(out_rank, in_rank, host_rank): BookSim's own port number of each directed link
    ``src[i] -> dst[i]`` at its source switch (output) and at its target (input), and of
    the hosts (after the network ports), for a topology of a family BookSim builds."""
    fn = _NATIVE.get(topo.name)
    if fn is None:
        raise ParameterError(f"port_order='booksim-native' knows the {', '.join(sorted(_NATIVE))} "
                             f"generators' networks, not {topo.name!r}; use port_order='hosts-first'")
    return fn(topo, src, dst)


def _compact(switch, rank):
    """Local index 0 .. p - 1 of each port of its switch, in the order of ``rank``
    (ties by position)."""
    order = np.lexsort((np.arange(len(rank)), rank, switch))
    local = np.empty(len(rank), dtype=np.int64)
    sw = switch[order]
    starts = np.r_[0, np.flatnonzero(np.diff(sw)) + 1]
    first = np.repeat(starts, np.diff(np.r_[starts, len(sw)]))
    local[order] = np.arange(len(sw)) - first
    return local


def local_ports(net, order: str = "hosts-first"):
    """(out_local, in_local) over the network's ``num_links + 2 * num_hosts`` ports (links,
    ejection ports, injection ports): each port's index among its switch's outputs and
    inputs, in the numbering ``order`` (:data:`PORT_ORDERS`)."""
    n, m, H = net.num_switches, net.num_links, net.num_hosts
    indptr = np.asarray(net.indptr, dtype=np.int64)
    indices = np.asarray(net.indices, dtype=np.int64)
    hosts = np.diff(np.append(net.host_offset, H))
    src = np.repeat(np.arange(n, dtype=np.int64), np.diff(indptr))
    h = np.arange(H, dtype=np.int64)
    h_local = h - np.asarray(net.host_offset)[net.host_switch]
    zeros = np.zeros(H, np.int64)
    if order == "hosts-first":
        rank = np.arange(m, dtype=np.int64) - indptr[src]
        # entry e = (u -> w) feeds switch w; its port there is hosts[w] + rank of u at w
        key = src * n + indices
        srt = np.argsort(key)
        rev = srt[np.searchsorted(key[srt], indices * n + src)]
        return (np.concatenate([hosts[src] + rank, h_local, zeros]),
                np.concatenate([hosts[indices] + rank[rev], zeros, h_local]))
    if order != "booksim-native":
        raise ParameterError(f"port_order must be one of {', '.join(PORT_ORDERS)}, got {order!r}")
    out_rank, in_rank, host_rank = native_port_ranks(net.topology, src, indices)
    hs = np.asarray(net.host_switch, dtype=np.int64)
    out_local = _compact(np.r_[src, hs], np.r_[out_rank, host_rank + h_local])
    in_local = _compact(np.r_[indices, hs], np.r_[in_rank, host_rank + h_local])
    return (np.concatenate([out_local[:m], out_local[m:], zeros]),
            np.concatenate([in_local[:m], zeros, in_local[m:]]))

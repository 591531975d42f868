"""Event kinds and the packet record of the reference simulator's engine (shared by its
parts)."""

# event kinds
_BLOCK, _READY, _CREDIT, _FREE, _IWAKE, _ALLOC = 0, 2, 3, 4, 5, 6
#: added to the sequence number of allocation events: they run after every other event
#: of their cycle, when all the requests of that cycle are known
_LATE = 1 << 60


class _Packet:
    __slots__ = ("pid", "src", "dst", "ctime", "ports", "vlo", "hop", "buf", "arr", "sent",
                 "measured", "links",
                 # the cycle the head asked for an output VC (allocation rounds only)
                 "vr",
                 # adaptive (escape) routing only: current switch, destination switch,
                 # escape phase (-1: on adaptive VCs), options at the current switch,
                 # ports whose waiting lists hold the packet
                 "at", "dsw", "esc", "opts_a", "opt_e", "wports")

    def __init__(self, pid, src, dst, ctime, ports, vlo, links, measured):
        self.pid = pid
        self.src = src
        self.dst = dst
        self.ctime = ctime
        self.ports = ports
        self.vlo = vlo
        self.links = links
        self.hop = 0
        self.buf = -1
        self.arr = ctime
        self.sent = -1
        self.measured = measured
        self.vr = -1

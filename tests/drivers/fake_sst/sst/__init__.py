"""A stand-in for SST's ``sst`` Python module that records what a model builds.

Only the calls topogen's model uses are provided.  Everything is appended to the
module-level ``RECORD`` so tests can check components, parameters, subcomponents, links
and statistics settings after running the model.
"""

RECORD = {"components": {}, "links": [], "stat_output": None, "stat_level": None}


def reset():
    """Forget everything recorded so far."""
    RECORD["components"] = {}
    RECORD["links"] = []
    RECORD["stat_output"] = None
    RECORD["stat_level"] = None


class _Element:
    def __init__(self, name, type_, parent=None, slot=None, index=None):
        self.name = name
        self.type = type_
        self.parent = parent
        self.slot = slot
        self.index = index
        self.params = {}
        self.subcomponents = {}
        self.statistics = []

    def addParam(self, key, value):
        if key in self.params:
            raise AssertionError(f"{self.name}: parameter {key} set twice")
        self.params[key] = value

    def addParams(self, params):
        for k, v in params.items():
            self.addParam(k, v)

    def setSubComponent(self, slot, type_, index=0):
        key = (slot, index)
        if key in self.subcomponents:
            raise AssertionError(f"{self.name}: slot {slot}[{index}] filled twice")
        sub = _Element(f"{self.name}:{slot}", type_, self, slot, index)
        self.subcomponents[key] = sub
        return sub

    def enableStatistics(self, names, params=None):
        self.statistics.append((tuple(names), dict(params or {})))

    def enableAllStatistics(self, params=None, apply_to_children=False):
        self.statistics.append((("*",), dict(params or {})))

    def addLink(self, link, port, latency):
        link._ends.append((self, port, latency))


class Component(_Element):
    def __init__(self, name, type_):
        if name in RECORD["components"]:
            raise AssertionError(f"component {name} created twice")
        super().__init__(name, type_)
        self.rank = None
        RECORD["components"][name] = self

    def setRank(self, rank, thread=0):
        if not isinstance(rank, int) or not isinstance(thread, int) or rank < 0 or thread < 0:
            raise AssertionError(f"{self.name}: setRank({rank!r}, {thread!r})")
        self.rank = (rank, thread)


class Link:
    def __init__(self, name, latency=None):
        self.name = name
        self.default_latency = latency
        self._ends = []
        RECORD["links"].append(self)

    def connect(self, end0, end1):
        if self._ends:
            raise AssertionError(f"link {self.name} connected twice")
        for comp, port, lat in (end0, end1):
            if not isinstance(comp, _Element):
                raise AssertionError(f"link {self.name}: not a component: {comp!r}")
            self._ends.append((comp, port, lat))

    @property
    def ends(self):
        return list(self._ends)


def setStatisticLoadLevel(level):
    RECORD["stat_level"] = level


def setStatisticOutput(kind, options=None):
    RECORD["stat_output"] = (kind, dict(options or {}))


def setProgramOption(name, value):
    RECORD.setdefault("program_options", {})[name] = value

"""Names of the routing algorithms, without importing their code (the ``topogen route
--algorithm`` choices are read from here when the command line builds its parser)."""

#: the algorithms :func:`topogen.routing.route` computes by name
ALGORITHMS = ("nr", "fr", "booksim-min", "updown", "dor", "dor-random", "valiant", "escape", "hop", "layered",
              "dsnf", "ugal-l", "ugal-g", "nca", "anca", "ugal-booksim",
              "romm", "valiant-booksim", "flatfly-xyyx", "flatfly-valiant",
              "flatfly-adaptive-xyyx", "flatfly-ugal", "flatfly-ugal-xyyx", "dor-bal", "nca-random",
              # SST merlin's own randomised and adaptive routings (topogen.routing.merlin_adaptive)
              "merlin-dragonfly-valiant", "merlin-dragonfly-ugal", "merlin-hyperx-valiant", "merlin-hyperx-doal",
              "merlin-dragonfly-adaptive-local", "merlin-dragonfly-min-a", "merlin-hyperx-min-a",
              "merlin-fattree-adaptive", "merlin-hyperx-vdal", "merlin-fattree-deterministic",
              # BookSim's min_adapt_torus (topogen.routing.torus_min_adapt)
              "min-adapt",
              # Duato's protocol with dimension-order escape paths (escape_paths="dor")
              "escape-dor")

#: how a table routing assigns virtual channels (``vc_rule`` of a routing folder)
VC_RULES = ("const", "hop", "dateline", "layer")

#: the options of :func:`topogen.routing.route` that only some algorithms take: option ->
#: the algorithms it changes (UGAL's readings of its cost rule; VC blocks for Valiant and UGAL)
ROUTING_OPTIONS = {"ugal_threshold": ("ugal-l", "ugal-g"), "ugal_count_packet": ("ugal-l", "ugal-g"),
                   "vc_ranges": ("valiant", "ugal-l", "ugal-g")}

"""Names of the placements and clusterings, without importing their code (the command
line's ``--placement`` and ``--method`` choices are read from here)."""

#: how :func:`topogen.layout.place` puts switches into cabinets
PLACEMENTS = ("auto", "sequential", "native", "random")
#: the clusterings of ``topogen layout cluster`` (:mod:`topogen.layout.pipeline`)
CLUSTERINGS = ("walktrap", "sequential")

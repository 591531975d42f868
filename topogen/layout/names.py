"""Names of the placements and clusterings, without importing their code (the command
line's ``--placement`` and ``--method`` choices are read from here)."""

#: how :func:`topogen.layout.place` puts switches into cabinets
PLACEMENTS = ("auto", "sequential", "native", "random")
#: the clusterings of ``topogen layout cluster`` (:mod:`topogen.layout.pipeline`)
CLUSTERINGS = ("walktrap", "sequential")
#: most cabinets a floor given on the command line may have (``--cabinets``)
MAX_CABINETS = 10 ** 6
#: longest Walktrap random walk (``layout cluster --steps``; the paper uses 4)
MAX_WALK_STEPS = 1000
#: most annealing moves per trial (``layout anneal --iterations``; the paper runs 10^8)
MAX_ANNEAL_ITERATIONS = 10 ** 10

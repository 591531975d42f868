"""Name lists of the cross-validation (``topogen crossval``), without importing its code
(the command line's ``--saturation-rule`` choices are read from here; ``--traffic``'s from
:mod:`topogen.experiments.names`)."""

#: how repeated runs of one load decide that it is not sustained
#: (:func:`topogen.reproduce.crossval.point_status`)
SATURATION_RULES = ("majority", "any")

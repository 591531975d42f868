"""Name lists of the cross-validation (``topogen crossval``), without importing its code
(the command line's ``--traffic`` and ``--saturation-rule`` choices are read from here)."""

#: traffic names crossval knows on all three simulators
TRAFFICS = ("uniform", "tornado")
#: how repeated runs of one load decide that it is not sustained
#: (:func:`topogen.reproduce.crossval.point_status`)
SATURATION_RULES = ("majority", "any")

"""Name lists of the experiment layer, without importing its code (the command line's
``--traffic`` choices of ``topogen crossval`` are read from here)."""

#: traffic names a point runs with on all three simulators
TRAFFICS = ("uniform", "tornado")

"""Topology generators, one module per family.

Every generator is a function ``name(params..., *, seed=None) -> Topology`` registered
with :func:`topogen.registry.register`; modules here are discovered automatically.
"""

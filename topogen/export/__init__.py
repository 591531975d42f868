"""Simulator inputs: BookSim2 anynet netlists and configs (:mod:`topogen.export.booksim`),
SST/merlin bundles and their route tables (:mod:`topogen.export.sst`,
:mod:`topogen.export.sst_tables`, :mod:`topogen.export.sst_relabel`).

Topology files (JSON bundle, edge list, GraphML) are :mod:`topogen.formats`.
"""

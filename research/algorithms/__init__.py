"""Algorithms ported with zenbrain's library that no layer or stage uses yet.

Each module keeps its source (paper or model), its constants and its tests
(``tests/research/``, run by the suite). They are not part of the installed package: to
put one to work, wire it as a stage (:mod:`zenbrain.stages`) with a benchmark that shows
what it changes, and move it back into :mod:`zenbrain._algorithms`.
"""

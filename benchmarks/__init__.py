"""zenbrain's benchmarks: ``python -m benchmarks`` lists them, ``python -m benchmarks NAME`` runs
one (from the repository root). See :mod:`benchmarks.runner`."""

"""Benchmarks of zenbrain against its peers, run as ``python -m benchmarks.<name>``."""

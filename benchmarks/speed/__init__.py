"""Speed of single operations: cold starts, writes, encryption, load, recall before and after.

A group of benchmarks, each run on its own (``python -m benchmarks speed.NAME``); most take
the scale benchmark's corpora (``--corpus locomo|synthetic``, :mod:`benchmarks.common.corpora`)
and print a markdown table.
"""

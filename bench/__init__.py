"""Benchmarks, run by hand from the repository's root as modules (``python -m bench.engine``),
never as timed tests; their figures are in bench/README.md."""

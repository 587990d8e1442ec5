"""Benchmarks that print figures (``make bench``); results go in BENCHMARKS.md."""

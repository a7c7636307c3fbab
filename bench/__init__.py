"""Benchmarks. Each module measures one thing and can write its figures into docs/."""

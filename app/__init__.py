"""Lantern: an offline course assistant grounded in a corpus bundle of course guides."""

__version__ = "0.1.0"

"""Ledgerly: invoicing for small studios."""

__version__ = "2.14.0"

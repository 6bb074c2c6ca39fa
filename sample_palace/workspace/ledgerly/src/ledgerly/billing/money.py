"""Amounts are integer minor units (cents). Never floats."""

from dataclasses import dataclass


@dataclass(frozen=True)
class Money:
    amount_minor: int
    currency: str

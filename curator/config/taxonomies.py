"""The taxonomies a palace can choose: its note types, their rooms, confidence ranges, and the
order of authority between them."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TypeSpec:
    name: str
    room: str
    purpose: str
    confidence: tuple[float, float]
    default_confidence: float
    review_after_days: int = 90


TAXONOMIES: dict[str, tuple[TypeSpec, ...]] = {
    "palace": (
        TypeSpec(
            "user", "Who you work for", "who the person is and what they prefer", (0.8, 1.0), 0.9
        ),
        TypeSpec("feedback", "Rules", "a rule about how to work", (0.7, 1.0), 0.9),
        TypeSpec("project", "Project facts", "a fact about a system", (0.5, 1.0), 0.8),
        TypeSpec("reference", "References", "where to find something", (0.5, 1.0), 0.8),
    ),
    "five-types": (
        TypeSpec("principle", "Principles", "rules that never change", (1.0, 1.0), 1.0),
        TypeSpec(
            "semantic",
            "Semantic facts",
            "cross-run facts: what works, what fails",
            (0.7, 0.95),
            0.8,
        ),
        TypeSpec(
            "procedural", "Procedures", "how to do something, learned by doing", (0.6, 0.9), 0.75
        ),
        TypeSpec("episodic", "Episodes", "what happened in one run", (1.0, 1.0), 1.0),
        TypeSpec("reflective", "Reflections", "patterns across many runs", (0.7, 0.95), 0.8),
    ),
}
AUTHORITY = {
    "palace": ("user", "feedback", "project", "reference"),
    "five-types": ("principle", "semantic", "procedural", "reflective", "episodic"),
}

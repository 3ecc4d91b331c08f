"""Rules for the mistral provider pack (being written)."""

from __future__ import annotations

from heal.rules._base import Rule

RULES: tuple[Rule, ...] = ()
"""This pack's rules, in the order they run."""

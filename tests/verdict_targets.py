"""Targets that name more than a provider, for the plain verdicts' property tests.

Each verdict promises "no repair" for the target it is asked under (``heal._verdict.fit_for``):
a model turns rules on or off, ``thinking`` and the request's tools too. The property tests run
each history under every provider alone and under these, which cover what a target turns on:
a model that refuses prefill (``anthropic-assistant-prefill``, on Anthropic's API and not on
Bedrock's), one that takes it, thinking on and off, known tools (``tool-not-offered``: some of
the strategies' names offered, an empty list), the Gemini models with and without signatures,
the models without reasoning input, and providers inferred from the model."""

from __future__ import annotations

from typing import Any

MODEL_TARGETS: list[dict[str, Any]] = [
    {"model": "claude-sonnet-4-6"},
    {"model": "claude-sonnet-4-5"},
    {"provider": "anthropic", "model": "claude-opus-4-6", "thinking": True},
    {"provider": "anthropic", "model": "claude-haiku-4-5", "tools": ["search", "get_weather"]},
    {"provider": "bedrock", "model": "claude-sonnet-4-6"},
    {"model": "gpt-4o", "tools": ["search", "get_weather"]},
    {"provider": "openai-chat", "model": "gpt-5", "thinking": False, "tools": []},
    {"model": "gemini-2.5-flash"},
    {"model": "gemini-3-pro-preview", "tools": ["search"]},
    {"model": "mistral-large-latest"},
    {"model": "deepseek-reasoner"},
    {"provider": "groq", "model": "llama-3.3-70b-versatile"},
    {"provider": "cerebras", "model": "gpt-oss-120b"},
    {"provider": "openai-compatible", "model": "claude-sonnet-4-6", "thinking": False},
]
"""Keyword arguments of a heal call, each naming a model (and some thinking or tools)."""

"""heal: keep LLM conversation histories acceptable to every model provider.

Heal a history before sending it::

    from heal import heal_messages

    result = heal_messages(messages, provider="anthropic")
    result.messages   # healed copies (untouched messages are your own objects)
    result.repairs    # what changed, where (in your input), and what was removed

Check one in CI with :func:`validate_messages`. Histories are Vercel AI SDK ``ModelMessage``
JSON or the models in :mod:`heal.messages`.

The public names are loaded on first use, so ``import heal`` itself is cheap (the pytest plugin
and the command line rely on that).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from heal._engine import HealResult, ValidationResult, heal_messages, validate_messages
    from heal._json import JsonHealResult, heal_json
    from heal.budget import FitResult, fit
    from heal.errors import ConfigError, ConvergenceError, HealError, HealingError, InputError
    from heal.messages import ModelMessage, dump_messages, load_messages
    from heal.policy import Policy
    from heal.providers import PROVIDERS, ProviderId, infer_provider
    from heal.reactive import heal_after_error
    from heal.repairs import Action, Repair, Scope
    from heal.rules import Rule, register_rule
    from heal.targets import Target

__all__ = [
    "PROVIDERS",
    "Action",
    "ConfigError",
    "ConvergenceError",
    "FitResult",
    "HealError",
    "HealResult",
    "HealingError",
    "InputError",
    "JsonHealResult",
    "ModelMessage",
    "Policy",
    "ProviderId",
    "Repair",
    "Rule",
    "Scope",
    "Target",
    "ValidationResult",
    "dump_messages",
    "fit",
    "heal_after_error",
    "heal_json",
    "heal_messages",
    "infer_provider",
    "load_messages",
    "register_rule",
    "validate_messages",
]

__version__ = "0.1.0"

_HOMES = {
    "HealResult": "heal._engine",
    "ValidationResult": "heal._engine",
    "heal_messages": "heal._engine",
    "validate_messages": "heal._engine",
    "JsonHealResult": "heal._json",
    "heal_json": "heal._json",
    "ConfigError": "heal.errors",
    "ConvergenceError": "heal.errors",
    "HealError": "heal.errors",
    "HealingError": "heal.errors",
    "InputError": "heal.errors",
    "FitResult": "heal.budget",
    "fit": "heal.budget",
    "ModelMessage": "heal.messages",
    "dump_messages": "heal.messages",
    "load_messages": "heal.messages",
    "Policy": "heal.policy",
    "PROVIDERS": "heal.providers",
    "ProviderId": "heal.providers",
    "infer_provider": "heal.providers",
    "heal_after_error": "heal.reactive",
    "Action": "heal.repairs",
    "Repair": "heal.repairs",
    "Scope": "heal.repairs",
    "Rule": "heal.rules",
    "register_rule": "heal.rules",
    "Target": "heal.targets",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'heal' has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])

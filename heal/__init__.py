"""heal: keep LLM conversation histories acceptable to every model provider.

Heal a history before sending it::

    from heal import heal_messages

    result = heal_messages(messages, provider="anthropic")
    result.messages   # healed copies (untouched messages are your own objects)
    result.repairs    # what changed, where (in your input), and what was removed

Check one in CI with :func:`validate_messages`. Histories are Vercel AI SDK ``ModelMessage``
JSON or the models in :mod:`heal.messages`.
"""

from heal._engine import HealResult, ValidationResult, heal_messages, validate_messages
from heal.errors import ConfigError, ConvergenceError, HealError, HealingError, InputError
from heal.messages import ModelMessage, dump_messages, load_messages
from heal.policy import Policy
from heal.providers import PROVIDERS, ProviderId
from heal.repairs import Action, Repair, Scope
from heal.rules import Rule, register_rule

__all__ = [
    "PROVIDERS",
    "Action",
    "ConfigError",
    "ConvergenceError",
    "HealError",
    "HealResult",
    "HealingError",
    "InputError",
    "ModelMessage",
    "Policy",
    "ProviderId",
    "Repair",
    "Rule",
    "Scope",
    "ValidationResult",
    "dump_messages",
    "heal_messages",
    "load_messages",
    "register_rule",
    "validate_messages",
]

__version__ = "0.1.0"

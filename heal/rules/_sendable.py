"""What a history has left to send: the check that keeps a fix from healing it down to nothing.

Every provider rejects a request with no messages (``empty-history``, :mod:`heal.rules.content`,
cites their texts), so no fix may leave a history with nothing to send. A rule about to remove
a message asks :func:`nothing_else` first, and when the message is the last one with anything
in it, it keeps the message and reports instead: the caller gets the history back with the
reason it cannot be sent, not an empty list that looks healed.

heal's own placeholder text (:data:`~heal.providers.SYNTHESIZED` text parts, such as the
``"(continued)"`` user turn ``bedrock-first-message`` puts in front of a cut-off history) does
not count as something to send: a request made of nothing but a turn heal wrote asks the model
to answer words nobody said.
"""

from __future__ import annotations

from heal.messages import ModelMessage, Part, TextPart
from heal.providers import HEAL_NAMESPACE
from heal.rules._base import Context

__all__ = ["nothing_else", "nothing_to_send", "placeholder_text"]


def placeholder_text(part: Part) -> bool:
    """Whether a part is text heal synthesized (marked ``{"heal": {"synthesized": true}}``)."""
    if not isinstance(part, TextPart):
        return False
    options = part.provider_options
    marker = options.get(HEAL_NAMESPACE) if options else None
    return isinstance(marker, dict) and marker.get("synthesized") is True


def nothing_to_send(message: ModelMessage) -> bool:
    """Whether a message holds nothing to send: no content, only whitespace text (as a string
    or as text parts), or only heal's placeholder text."""
    content = message.content
    if isinstance(content, str):
        return not content or content.isspace()
    for part in content:
        if not isinstance(part, TextPart):
            return False
        text = part.text
        if text and not text.isspace() and not placeholder_text(part):
            return False
    return True


def nothing_else(ctx: Context, removing: frozenset[int]) -> bool:
    """Whether every user, assistant and tool message outside ``removing`` holds nothing to
    send: removing those messages would leave the history nothing to send. Stops at the first
    message with content, so it costs little on ordinary histories."""
    roles = ctx.index.roles
    for m, message in enumerate(ctx.messages):
        if m in removing or roles[m] == "system":
            continue
        if not nothing_to_send(message):
            return False
    return True

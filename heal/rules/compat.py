"""Rules for the OpenAI-compatible servers that differ on reasoning: DeepSeek, Cerebras, Groq, xAI.

They all take Chat Completions bodies, so the OpenAI pack's ``provider-executed-tool-call``
applies to them too. What differs is what they do with reasoning, which the AI SDK sends as a
``reasoning_content`` field (``@ai-sdk/deepseek``, ``@ai-sdk/openai-compatible``). In the order
they run (the registry, :mod:`heal.rules`, lists them):

1. ``cerebras-strip-reasoning-content`` (Mastra's id) and ``groq-unsupported-reasoning``: these
   validate the body strictly and reject the field; reasoning parts are removed (request only).
   Both are declared in :mod:`heal.rules.reasoning`, as instances of the rule for APIs that
   reject reasoning input (Mistral's ``mistral-reasoning-input`` is another).
2. ``xai-encrypted-reasoning`` (off by default; named by its error): encrypted reasoning replayed
   to xAI was rejected; it is removed (request only).
3. ``missing-reasoning-content``: DeepSeek in thinking mode is the opposite and REQUIRES the
   field on assistant tool-call turns; an empty reasoning part is added (request only).

xAI's other rule, "an assistant message with tool calls and no content is rejected"
(``Each message must have at least one content element``, langchain-ai/langchain#34140), has
nothing to repair in AI SDK terms: ``@ai-sdk/xai`` always sends ``content: ""`` with the tool
calls (the workaround the reports give), and an empty text part would serialize the same way
(and is removed by ``empty-text``). Fully empty messages are removed by ``empty-message``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from heal.messages import ReasoningPart
from heal.repairs import Action, Scope
from heal.rules import _errors as err
from heal.rules import _examples as ex
from heal.rules._base import (
    Context,
    DropPart,
    Example,
    Finding,
    FreshJson,
    PartsAtStart,
    Rejection,
    Rule,
    SetMessage,
)
from heal.rules._options import SYNTHESIZED, with_options

__all__ = [
    "MissingReasoningContent",
    "XaiEncryptedReasoning",
]

_EMPTY_REASONING = ReasoningPart(text="", provider_options=SYNTHESIZED)
_EMPTY_REASONING_JSON = FreshJson(
    lambda: {"type": "reasoning", "text": "", "providerOptions": {"heal": {"synthesized": True}}}
)
"""Its record form (``tests/test_engine.py`` holds it to the part's dump), made new for
each record: a DeepSeek history adds one per tool-call turn."""


class XaiEncryptedReasoning(Rule):
    """xAI reasoning with encrypted content (``providerOptions.xai.reasoningEncryptedContent``),
    which ``@ai-sdk/xai`` replays to the Responses endpoint.

    Why: replaying it was rejected with xAI's generic
    ``Invalid request content: Each message must have at least one content element.``
    (NousResearch/hermes-agent#30310, an OAuth session). Replaying encrypted reasoning is also
    how xAI keeps reasoning across turns with ``store: false``, and only one failure is on record,
    so the rule is off by default and runs when that error names it.

    Fix: remove the encrypted reasoning parts from this request. The model loses its earlier
    reasoning; the conversation text is intact.
    """

    id = "xai-encrypted-reasoning"
    triggers = frozenset({"reasoning"})
    summary = "encrypted xAI reasoning replayed to xAI (run on its error)"
    providers = frozenset({"xai"})
    scope = Scope.REQUEST
    default_enabled = False
    choice_docs = {
        "fix": "Remove every reasoning part with xAI encrypted content from this request. The "
        "earlier reasoning is lost for this call; the parts are kept in the repair records.",
    }
    rejections = (
        Rejection(
            "xai",
            "Invalid request content: Each message must have at least one content element.",
            "NousResearch/hermes-agent#30310 (encrypted reasoning replayed on /v1/responses)",
            pattern=err.XAI_EMPTY_CONTENT,
        ),
    )
    example = Example(
        provider="xai",
        before=[
            {"role": "user", "content": "hi"},
            {
                "role": "assistant",
                "content": [
                    {
                        "type": "reasoning",
                        "text": "",
                        "providerOptions": {
                            "xai": {"itemId": "rs_1", "reasoningEncryptedContent": "enc"}
                        },
                    },
                    {"type": "text", "text": "hello"},
                ],
            },
            {"role": "user", "content": "again"},
        ],
        after=[
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": [{"type": "text", "text": "hello"}]},
            {"role": "user", "content": "again"},
        ],
    )

    def check(self, ctx: Context, choice: str) -> Iterator[Finding]:
        for m, p, part in ctx.index.reasoning:
            values = (part.provider_options or {}).get("xai") or {}
            encrypted = values.get("reasoningEncryptedContent")
            if isinstance(encrypted, str) and encrypted:
                yield Finding(
                    Action.REMOVE,
                    m,
                    p,
                    "encrypted xAI reasoning is rejected on replay; removed from this request",
                    edits=(DropPart(m, p),),
                    removed=part,
                )


def _compat_field(options: object) -> bool:
    if not isinstance(options, dict):
        return False
    values = options.get("openaiCompatible")
    return isinstance(values, dict) and "reasoning_content" in values


_ADDED_REASONING = (
    "assistant tool-call message has no reasoning; added an empty reasoning part (sent as "
    'reasoning_content: "")'
)


class MissingReasoningContent(Rule):
    """An assistant message with tool calls but no reasoning, sent to DeepSeek.

    Why: in thinking mode every assistant message that made tool calls must carry its
    ``reasoning_content`` in later requests: ``Missing `reasoning_content` field in the assistant
    message at message index 2. For more information, please refer to
    https://api-docs.deepseek.com/guides/thinking_mode#tool-calls`` (V3.2), and ``The
    `reasoning_content` in the thinking mode must be passed back to the API.`` (V4; ``The
    `reasoning_text` ...`` on its Responses endpoint, rikkahub/rikkahub#1629). The
    reasoning is lost when a history was pruned or came from another provider. The field must
    be present; an empty string is accepted (deepseek-ai/deepseek-harness discussion #1850;
    continuedev PR#11290 sends ``""`` on every assistant message).

    Fix, by choice:

    * ``empty-reasoning``: add an empty reasoning part at the start of the message, marked
      ``providerOptions: {"heal": {"synthesized": true}}``. ``@ai-sdk/deepseek`` sends a
      message's reasoning parts as ``reasoning_content``, so this becomes
      ``reasoning_content: ""``. (It back-fills ``""`` itself only for ``deepseek-v4`` models.)
    * ``compat-field``: set ``providerOptions.openaiCompatible.reasoning_content = ""`` on the
      message, for DeepSeek through ``@ai-sdk/openai-compatible``, which copies those options
      onto the wire message but sends no field for an empty reasoning part.

    Either way the change is for this request only, and adds no words: nothing the model reads.
    """

    id = "missing-reasoning-content"
    triggers = frozenset({"calls"})
    needs = frozenset({"calls_without_reasoning"})
    summary = "assistant tool-call message without reasoning, sent to DeepSeek (thinking mode)"
    providers = frozenset({"deepseek"})
    scope = Scope.REQUEST
    choices = ("empty-reasoning", "compat-field")
    choice_docs = {
        "empty-reasoning": "Add an empty reasoning part (marked synthesized) at the start of the "
        'message, which @ai-sdk/deepseek sends as reasoning_content: "". Adds no text; '
        "removes nothing.",
        "compat-field": 'Set providerOptions.openaiCompatible.reasoning_content = "" on the '
        "message, which @ai-sdk/openai-compatible copies onto the wire message. Adds no text; "
        "removes nothing.",
    }
    rejections = (
        Rejection(
            "deepseek",
            "Missing `reasoning_content` field in the assistant message at message index 2. For "
            "more information, please refer to "
            "https://api-docs.deepseek.com/guides/thinking_mode#tool-calls",
            "api-docs.deepseek.com/guides/thinking_mode; hotovo/aider-desk#529; "
            "CherryHQ/cherry-studio#11751",
            pattern=err.DEEPSEEK_MISSING_REASONING_CONTENT,
        ),
        Rejection(
            "deepseek (V4)",
            "The `reasoning_content` in the thinking mode must be passed back to the API.",
            "JohnnyZ93/oai-compatible-copilot#215; borawong/AiMaMi#8",
            pattern=err.DEEPSEEK_REASONING_CONTENT_PASSED_BACK,
        ),
        Rejection(
            "deepseek (V4, Responses API)",
            "The `reasoning_text` in the thinking mode must be passed back to the API.",
            "rikkahub/rikkahub#1629, #1670",
            pattern=err.DEEPSEEK_REASONING_CONTENT_PASSED_BACK,
        ),
        Rejection(
            "kimi / moonshot (through openai-compatible)",
            "thinking is enabled but reasoning_content is missing in assistant tool call message",
            "axonhub PR#1755; open-webui/open-webui#23175",
            pattern=err.KIMI_MISSING_REASONING_CONTENT,
        ),
    )
    example = Example(
        provider="deepseek",
        before=[
            {"role": "user", "content": "weather?"},
            {"role": "assistant", "content": [ex.call("call_1", "weather")]},
            {"role": "tool", "content": [ex.result("call_1", "weather")]},
        ],
        after=[
            {"role": "user", "content": "weather?"},
            {
                "role": "assistant",
                "content": [
                    {"type": "reasoning", "text": "", "providerOptions": SYNTHESIZED},
                    ex.call("call_1", "weather"),
                ],
            },
            {"role": "tool", "content": [ex.result("call_1", "weather")]},
        ],
    )

    def check(self, ctx: Context, choice: str) -> Iterable[Finding]:
        found = _calls_without_reasoning(ctx)
        if choice == "compat-field":
            return self._compat_fields(ctx, found)
        # One finding per tool-call message of the history (every one, for a history from
        # another provider): as one batch.
        return PartsAtStart(found, _EMPTY_REASONING, _ADDED_REASONING, _EMPTY_REASONING_JSON)

    def _compat_fields(self, ctx: Context, found: list[int]) -> Iterator[Finding]:
        messages = ctx.messages
        for m in found:
            message = messages[m]
            options = dict(message.provider_options or {})
            options["openaiCompatible"] = {
                **options.get("openaiCompatible", {}),
                "reasoning_content": "",
            }
            yield Finding(
                Action.REPLACE,
                m,
                None,
                "assistant tool-call message has no reasoning; set "
                'providerOptions.openaiCompatible.reasoning_content to ""',
                edits=(SetMessage(m, with_options(message, options)),),
                added={"providerOptions": {"openaiCompatible": {"reasoning_content": ""}}},
            )


def _calls_without_reasoning(ctx: Context) -> list[int]:
    """The assistant messages, in order, with a client-executed tool call and no reasoning,
    and no ``reasoning_content`` in their options."""
    index = ctx.index
    if not index.calls:
        return []
    with_reasoning = {m for m, _, _ in index.reasoning}
    messages = ctx.messages
    roles = index.roles
    found: list[int] = []
    done: set[int] = set()
    for m, _, call in index.calls:
        if m in done or m in with_reasoning or call.provider_executed:
            continue
        done.add(m)
        options = messages[m].provider_options
        if roles[m] == "assistant" and (options is None or not _compat_field(options)):
            found.append(m)
    return found

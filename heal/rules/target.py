"""Rules that exist because of the target request: the tools it offers and what its model takes.

Every rule here reads :attr:`Context.target <heal.rules.Context.target>` (see
:mod:`heal.targets`) and runs only when the caller told heal what it needs: with no model,
no tools and no thinking setting, none of them runs, which is heal's behaviour before targets.

1. ``tool-not-offered``: a tool call whose tool is not in the request's tool list.
2. ``model-without-image-input``: images sent to a model that takes none.
3. ``claude-foreign-model-signature``: signed thinking another Claude model wrote.
4. ``claude-thinking-prefix-binding``: signed thinking after a change heal made, for models that
   bind thinking blocks to the conversation before them. It runs last among the provider rules,
   so that it sees every change the others made (the engine repeats the rules until nothing
   changes, so a change made after it is seen on the next pass).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from heal.messages import FilePart, ImagePart, ModelMessage, ReasoningPart, TextPart
from heal.providers import HEAL_NAMESPACE, SYNTHESIZED
from heal.repairs import Action, Scope
from heal.rules import _errors as err
from heal.rules import _examples as ex
from heal.rules._base import Context, DropPart, Example, Finding, Rejection, Rule, SetPart
from heal.rules.reasoning import ANTHROPIC_SIGNING, BEDROCK_SIGNING, Signing
from heal.rules.tool_pairing import PLACEHOLDER_TEXT
from heal.targets import Target, signature_scope

__all__ = [
    "ClaudeForeignModelSignature",
    "ClaudeThinkingPrefixBinding",
    "ModelWithoutImageInput",
    "ToolNotOffered",
    "other_models_thinking",
    "other_writer",
    "produced_by",
]

_CLAUDE_WIRES = frozenset({"anthropic", "bedrock"})
_NEEDS_TOOL_DEFINITIONS = frozenset({"anthropic", "bedrock"})
"""Providers that reject tool blocks in a request that defines no tools (``tool-not-offered``)."""
_SIGNING: Mapping[str | None, Signing] = {
    "anthropic": ANTHROPIC_SIGNING,
    "bedrock": BEDROCK_SIGNING,
}


def produced_by(message: ModelMessage) -> str | None:
    """The model that wrote an assistant message, where the history records it: heal's own
    ``providerOptions.heal.model`` (set it when you store messages), pydantic-ai's
    ``ModelResponse.model_name`` and LangChain's ``response_metadata`` ``model_name`` / ``model``
    (kept there by heal's adapters). None when nothing says."""
    options = message.provider_options
    if not isinstance(options, dict):
        return None
    mine = options.get(HEAL_NAMESPACE)
    if not isinstance(mine, dict):
        return None
    found = mine.get("model")
    if isinstance(found, str) and found:
        return found
    native = _dig(mine, "pydantic_ai", "message")
    if native is not None and isinstance(native.get("model_name"), str):
        return str(native["model_name"]) or None
    metadata = _dig(mine, "langchain", "message", "response_metadata")
    if metadata is not None:
        for key in ("model_name", "model"):
            value = metadata.get(key)
            if isinstance(value, str) and value:
                return value
    return None


def _dig(data: Mapping[str, Any], *keys: str) -> Mapping[str, Any] | None:
    node: Any = data
    for key in keys:
        node = node.get(key) if isinstance(node, Mapping) else None
    return node if isinstance(node, Mapping) else None


# --- 1. tool-not-offered ---------------------------------------------------------------------


class ToolNotOffered(Rule):
    """A tool call whose tool the request does not offer.

    A model shown a call to a tool it cannot call again imitates it (a hallucinated call to a
    tool that no longer exists), and some servers reject the history outright. Runs only when
    the caller gave the request's tools (``tools=``); calls the provider ran itself are not
    checked (their tools are the provider's). The default keeps the pair and says so (a ``keep``
    record, which does not fail validation): most providers accept such a history, and the
    call and its result are the conversation's record of what happened. ``drop-pair`` removes
    the call and its results for this request.

    One case is rejected for sure: Anthropic and Bedrock refuse any tool block when the request
    defines no tools at all (the errors below; they come after compaction or summary requests
    that replay a tool loop without tools). There ``keep-pair`` reports the call (a report
    fails validation), and ``drop-pair`` is the fix.
    """

    id = "tool-not-offered"
    summary = "a tool call whose tool is not in the request's tool list (runs when tools= is given)"
    scope = Scope.REQUEST
    triggers = frozenset({"calls"})
    needs = frozenset({"unoffered_tools"})
    choices = ("keep-pair", "drop-pair")
    choice_docs = {
        "keep-pair": "Keep the call and its result; record it (a keep record: validation passes).",
        "drop-pair": "Remove the call and every result for it from this request; both are "
        "kept in the repair record. A call in the latest message of signed thinking that "
        "Anthropic or Bedrock verify is kept (that message must go back as it was).",
    }
    rejections = (
        Rejection(
            "anthropic",
            "Requests which include tool_use or tool_result blocks must define tools.",
            "anthropics/anthropic-sdk-python#494",
            pattern=err.ANTHROPIC_TOOLS_UNDEFINED,
        ),
        Rejection(
            "bedrock",
            "ValidationException: The toolConfig field must be defined when using toolUse and "
            "toolResult content blocks.",
            "langgenius/dify#17545; elastic/kibana PR#246943; aws-samples/bedrock-access-gateway "
            "PR#239",
            pattern=err.BEDROCK_TOOL_CONFIG_UNDEFINED,
        ),
    )
    example = Example(
        before=[
            ex.user("weather?"),
            {"role": "assistant", "content": [ex.call("c1", "old_weather")]},
            {"role": "tool", "content": [ex.result("c1", "old_weather")]},
            ex.user("thanks"),
        ],
        after=[ex.user("weather?"), ex.user("thanks")],
        choice="drop-pair",
        tools=("get_weather",),
    )

    def enabled_for(self, target: Target) -> bool | None:
        return None if target.tools is not None else False

    def check(self, ctx: Context, choice: str) -> Iterator[Finding]:
        offered = ctx.target.tools
        if offered is None:
            return
        index = ctx.index
        results: dict[str, list[tuple[int, int, Any]]] = {}
        for ref in index.results:
            results.setdefault(ref[2].tool_call_id, []).append(ref)
        protected = ctx.protected if choice == "drop-pair" else frozenset()
        rejected = not offered and ctx.provider in _NEEDS_TOOL_DEFINITIONS
        for m, p, call in index.calls:
            if call.provider_executed or call.tool_name in offered:
                continue
            what = (
                f"tool call {call.tool_name!r} ({call.tool_call_id!r}): the request does not "
                "offer this tool"
            )
            if choice == "keep-pair" or m in protected:
                if rejected:
                    why = (
                        "this provider rejects tool blocks when the request defines no tools: "
                        "offer the tool, or choose drop-pair"
                    )
                    action = Action.REPORT
                else:
                    why = "kept" if m not in protected else "kept (it is in the protected message)"
                    action = Action.KEEP
                yield Finding(action, m, p, f"{what}; {why}", tool_call_id=call.tool_call_id)
                continue
            paired = results.get(call.tool_call_id, [])
            edits = (DropPart(m, p), *(DropPart(rm, rp) for rm, rp, _ in paired))
            yield Finding(
                Action.REMOVE,
                m,
                p,
                f"{what}; removed with its {len(paired)} result(s) from this request",
                edits=edits,
                tool_call_id=call.tool_call_id,
                removed=[call, *(part for _, _, part in paired)],
            )


# --- 2. model-without-image-input ------------------------------------------------------------

IMAGE_MARKER = "[image omitted: the model of this request does not take images]"
"""The text an image becomes for a model without image input."""


class ModelWithoutImageInput(Rule):
    """An image sent to a model that takes no images (``gpt-3.5-turbo``, ``o3-mini``,
    DeepSeek's chat models; see :mod:`heal.targets`).

    Runs when the target's model is known to lack image input. Each image (an image part, or a
    file part with an ``image/*`` media type) becomes a short text marker, for this request
    only: the stored history keeps the image, and a later request to a model with vision sees it
    again. The image is in the repair record.
    """

    id = "model-without-image-input"
    summary = "images sent to a model without image input (runs when model= says so)"
    scope = Scope.REQUEST
    triggers = frozenset({"images", "files"})
    choices = ("text-marker",)
    choice_docs = {
        "text-marker": f"Replace each image with the text {IMAGE_MARKER!r} for this request; "
        "the image is kept in the repair record.",
    }
    rejections = (
        Rejection(
            "openai-chat",
            "Invalid content type. image_url is only supported by certain models.",
            "nextcloud/integration_openai#282; doitandbedone/ispyagentdvr-docker#677",
            pattern=err.OPENAI_IMAGE_NOT_SUPPORTED,
        ),
        Rejection(
            "deepseek",
            "Failed to deserialize the JSON body into the target type: messages[1]: unknown "
            "variant `image_url`, expected `text` at line 1 column 679289",
            "rikkahub/rikkahub#1433; jxxghp/MoviePilot#5863; lessweb/deepcode-cli PR#51",
            pattern=err.DEEPSEEK_IMAGE_URL_VARIANT,
        ),
    )
    example = Example(
        before=[
            {
                "role": "user",
                "content": [
                    ex.text("what is this?"),
                    {"type": "image", "image": "aGVsbG8=", "mediaType": "image/png"},
                ],
            }
        ],
        after=[
            {
                "role": "user",
                "content": [
                    ex.text("what is this?"),
                    {"type": "text", "text": IMAGE_MARKER, "providerOptions": SYNTHESIZED},
                ],
            }
        ],
        provider="deepseek",
        model="deepseek-chat",
    )

    def enabled_for(self, target: Target) -> bool | None:
        return target.facts.image_input is False

    def check(self, ctx: Context, choice: str) -> Iterator[Finding]:
        index = ctx.index
        found: list[tuple[int, int, ImagePart | FilePart]] = list(index.images)
        found += [
            (m, p, part)
            for m, p, part in index.files
            if isinstance(part, FilePart) and part.media_type.lower().startswith("image/")
        ]
        protected = ctx.protected
        for m, p, part in sorted(found, key=lambda ref: (ref[0], ref[1])):
            if m in protected:
                continue  # an assistant message of signed thinking holds no images heal made
            marker = TextPart(text=IMAGE_MARKER, provider_options=SYNTHESIZED)
            yield Finding(
                Action.REPLACE,
                m,
                p,
                "image sent to a model that takes no images; replaced by a text marker for "
                "this request",
                edits=(SetPart(m, p, marker),),
                removed=part,
                added=marker,
            )


# --- 3. claude-foreign-model-signature -------------------------------------------------------


class ClaudeForeignModelSignature(Rule):
    """Signed thinking that another Claude model wrote, sent to this one.

    A thinking signature is valid only for the model that issued it: after a switch between
    Claude models, Anthropic answers ``Invalid `signature` in `thinking` block``. Runs when the
    target's model is known and the history records which model wrote a message
    (:func:`produced_by`); a message with no such record is left alone (most histories are
    written by one model, and removing good thinking would lose the model's context for
    nothing). The models are compared by :func:`heal.targets.signature_scope` (the name less its
    date). The signed blocks go for this request; their text is in the repair record.
    """

    id = "claude-foreign-model-signature"
    summary = "signed thinking written by another Claude model than the target's (runs with model=)"
    providers = _CLAUDE_WIRES
    scope = Scope.REQUEST
    triggers = frozenset({"reasoning"})
    needs = frozenset({"other_model_thinking"})  # the parts it removes (other_models_thinking)
    edits_protected = True  # the provider rejects the block wherever it is
    choice_docs = {
        "fix": "Remove the other model's signed thinking from this request; its text and "
        "signature are kept in the repair record. The stored history keeps it, and a request "
        "to the model that wrote it sends it again.",
    }
    rejections = (
        Rejection(
            "anthropic",
            "messages.1.content.0: Invalid `signature` in `thinking` block",
            "vybestack/llxprt-code#2335 (after switching Claude models); ding113/claude-code-hub"
            "#518",
            pattern=err.ANTHROPIC_INVALID_THINKING_SIGNATURE,
        ),
    )
    example = Example(
        before=[
            ex.user("hi"),
            {
                "role": "assistant",
                "content": [ex.thinking("say hi"), ex.text("hello")],
                "providerOptions": {HEAL_NAMESPACE: {"model": "claude-opus-4-5"}},
            },
            ex.user("bye"),
        ],
        after=[
            ex.user("hi"),
            {
                "role": "assistant",
                "content": [ex.text("hello")],
                "providerOptions": {HEAL_NAMESPACE: {"model": "claude-opus-4-5"}},
            },
            ex.user("bye"),
        ],
        provider="anthropic",
        model="claude-sonnet-4-5",
    )

    def enabled_for(self, target: Target) -> bool | None:
        return None if target.model is not None else False

    def check(self, ctx: Context, choice: str) -> Iterator[Finding]:
        model = ctx.target.model
        if model is None:
            return
        found = other_models_thinking(ctx.messages, ctx.index.reasoning, ctx.provider, model)
        for m, p, part, writer in found:
            yield Finding(
                Action.REMOVE,
                m,
                p,
                f"thinking signed by {writer!r} sent to {model!r}: a signature is valid only "
                "for the model that issued it; removed from this request",
                edits=(DropPart(m, p),),
                removed=part,
            )


def other_writer(message: ModelMessage, scope: str) -> str | None:
    """The model that wrote ``message`` (:func:`produced_by`) when the history records one whose
    signatures are bound to another scope than ``scope`` (:func:`heal.targets.signature_scope`);
    None otherwise."""
    writer = produced_by(message)
    return writer if writer is not None and signature_scope(writer) != scope else None


def other_models_thinking(
    messages: Sequence[ModelMessage],
    reasoning: Iterable[tuple[int, int, ReasoningPart]],
    provider: str | None,
    model: str,
) -> Iterator[tuple[int, int, ReasoningPart, str]]:
    """The reasoning parts (of ``reasoning``, the index's list) that carry the signature of
    ``provider``'s platform in a message another model than ``model`` wrote, each with that
    model: what ``claude-foreign-model-signature`` removes, and the index fact
    ``other_model_thinking``."""
    signing = _SIGNING.get(provider)
    if signing is None:
        return
    scope = signature_scope(model)
    writers: dict[int, str | None] = {}  # each message's writer of another scope, or None
    for m, p, part in reasoning:
        if not signing.signs(part):
            continue
        if m not in writers:
            writers[m] = other_writer(messages[m], scope)
        writer = writers[m]
        if writer is not None:
            yield m, p, part, writer


# --- 4. claude-thinking-prefix-binding -------------------------------------------------------


class ClaudeThinkingPrefixBinding(Rule):
    """Signed thinking after a change heal made, for a model that binds thinking blocks to the
    conversation before them (Claude Opus 5.5, Fable 5.1; see :mod:`heal.targets`).

    On these models a thinking block's signature covers everything before it, the system
    prompt included: any change before the block invalidates it ("The block is bound to a
    different conversation. Remove the block, or set
    `thinking.block_binding.prefix_mismatch_behavior` to "drop_block""). When another rule
    changed the history at message *k*, every signed block after *k* goes for this request,
    with its text in the repair record; blocks before *k* and histories heal leaves unchanged
    are untouched, and nothing happens for models that do not bind. Off when the request sets
    ``prefix_mismatch_behavior="drop_block"`` (``Target``): the server then drops them itself.
    """

    id = "claude-thinking-prefix-binding"
    summary = "signed thinking after a change heal made, on models that bind thinking to the prefix"
    providers = _CLAUDE_WIRES
    scope = Scope.REQUEST
    triggers = frozenset({"reasoning"})
    edits_protected = True  # the provider rejects the block wherever it is
    choice_docs = {
        "fix": "Remove, from this request, every signed thinking block after the first message "
        "heal changed; each is kept in the repair record. The stored history keeps them.",
    }
    rejections = (
        Rejection(
            "anthropic",
            "messages.1.content.0: Invalid `signature` in `thinking` block. The block is bound "
            "to a different conversation. Remove the block, or set "
            '`thinking.block_binding.prefix_mismatch_behavior` to "drop_block". That setting '
            "requires the `thinking-binding-controls-2026-08-01` value in the `anthropic-beta` "
            "header. The `system` prompt differs from the one this block was created with.",
            "anomalyco/opencode#48637; apidog.com/de/blog/claude-fable-5-1-preserved-thinking",
            pattern=err.ANTHROPIC_THINKING_BOUND_TO_PREFIX,
        ),
    )
    example = Example(
        before=[
            ex.user("weather?"),
            {"role": "assistant", "content": [ex.call("c1", "weather")]},
            ex.user("and now?"),
            {
                "role": "assistant",
                "content": [ex.thinking("answer from the result"), ex.text("Sunny.")],
            },
            ex.user("thanks"),
        ],
        after=[
            ex.user("weather?"),
            {"role": "assistant", "content": [ex.call("c1", "weather")]},
            {
                "role": "tool",
                "content": [
                    {
                        "type": "tool-result",
                        "toolCallId": "c1",
                        "toolName": "weather",
                        "output": {
                            "type": "error-text",
                            "value": PLACEHOLDER_TEXT,
                        },
                        "providerOptions": SYNTHESIZED,
                    }
                ],
            },
            ex.user("and now?"),
            {"role": "assistant", "content": [ex.text("Sunny.")]},
            ex.user("thanks"),
        ],
        provider="anthropic",
        model="claude-opus-5-5",
    )

    def enabled_for(self, target: Target) -> bool | None:
        binds = target.facts.binds_thinking_prefix is True
        return binds and target.prefix_mismatch_behavior != "drop_block"

    def check(self, ctx: Context, choice: str) -> Iterator[Finding]:
        signing = _SIGNING.get(ctx.provider)
        first = ctx.first_change()
        if signing is None or first is None:
            return
        for m, p, part in ctx.index.reasoning:
            if m <= first or not isinstance(part, ReasoningPart) or not signing.signs(part):
                continue
            yield Finding(
                Action.REMOVE,
                m,
                p,
                f"signed thinking after message {first}, which heal changed: this model binds "
                "thinking to the conversation before it; removed from this request",
                edits=(DropPart(m, p),),
                removed=part,
            )

"""Rules for Google Gemini (``generateContent``, on the Gemini API and Vertex AI).

Gemini sees a history as ``contents`` of ``user`` and ``model`` turns; the AI SDK google adapter
turns each message into one turn (tool messages become ``user`` turns of function responses) and
merges nothing. Gemini 3 binds function calls to thought signatures it issued
(``providerOptions.google.thoughtSignature``; the adapter also reads the ``vertex`` and
``googleVertex`` namespaces), validated for the current turn only.

Order (the registry, :mod:`heal.rules`, lists the rules; a module named after a rule declares
it, as Gemini's instance of a rule other providers share): system messages first
(``google-mid-conversation-system``, :mod:`~heal.rules.system`: they decide where turns start),
then provider-executed calls, signatures and empty parts (all remove things:
``google-foreign-server-tool``, :mod:`~heal.rules.server_tools`;
``google-foreign-thought-signature``; ``google-assistant-file-url``, :mod:`~heal.rules.files`;
``google-empty-part``), then the turn shape (``google-content-tool-result``,
``google-split-tool-results``, :mod:`~heal.rules.roles`; ``google-function-call-turn``), and
last the missing signatures (``google-missing-thought-signature``), which depend on the final
steps of the current turn.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from heal._construct import replaced
from heal.messages import (
    ContentOutput,
    FilePart,
    ImagePart,
    ReasoningPart,
    ToolApprovalResponse,
)
from heal.repairs import Action, Scope
from heal.rules import _errors as err
from heal.rules import _examples as ex
from heal.rules._base import (
    Context,
    DropMessage,
    DropPart,
    Example,
    Finding,
    Rejection,
    Rule,
    SetPart,
)
from heal.rules._options import (
    HEAL_NAMESPACE,
    foreign_options,
    namespaces,
    with_options,
)
from heal.rules.roles import LEAD_CHOICE_DOCS, blank, lead_with_user, merge_run

if TYPE_CHECKING:
    from heal.targets import Target

__all__ = [
    "GOOGLE_NAMESPACES",
    "SKIP_THOUGHT_SIGNATURE",
    "GoogleContentToolResult",
    "GoogleEmptyPart",
    "GoogleForeignThoughtSignature",
    "GoogleFunctionCallTurn",
    "GoogleMissingThoughtSignature",
]

GOOGLE = "google"
GOOGLE_NAMESPACES = ("google", "vertex", "googleVertex")
"""The provider-options namespaces the AI SDK google adapter reads thought signatures from."""

SKIP_THOUGHT_SIGNATURE = "skip_thought_signature_validator"
"""Google's documented stand-in for a thought signature that was lost or never issued
(ai.google.dev/gemini-api/docs/thought-signatures)."""

MEDIA_RESULT_TEXT = "(the tool returned the attached media)"
"""The text ``google-content-tool-result`` gives a content result that has none."""

_DOCUMENTED_DUMMIES = frozenset({SKIP_THOUGHT_SIGNATURE, "context_engineering_is_the_way_to_go"})
# Standard or URL-safe base64, padded or not: what Google's JSON parser accepts for bytes.
_BASE64 = re.compile(r"[A-Za-z0-9+/_-]+={0,2}")

_REJECT_SIGNATURE = (
    Rejection(
        "google",
        "Invalid value at 'contents[2].parts[0].thought_signature' (TYPE_BYTES), Base64 "
        'decoding failed for "Es4D..."',
        "crmne/ruby_llm#521; google-gemini/gemini-cli#8003",
        pattern=err.GOOGLE_INVALID_THOUGHT_SIGNATURE,
    ),
    Rejection(
        "google",
        "Corrupted thought signature.",
        "MayDay-wpf/snow-cli#84; decolua/9router#4136; BerriAI/litellm PR#38333",
        pattern=err.GOOGLE_INVALID_THOUGHT_SIGNATURE,
    ),
)


@lru_cache(maxsize=4096)
def _valid_text(value: str) -> bool:
    if value in _DOCUMENTED_DUMMIES:
        return True
    if _BASE64.fullmatch(value) is None:
        return False
    body = value.rstrip("=")
    return len(body) % 4 != 1 and (body == value or len(value) % 4 == 0)


def valid_signature(value: object) -> bool:
    """Whether a thought signature can be a Gemini one: base64 bytes or a documented dummy."""
    return isinstance(value, str) and bool(value) and _valid_text(value)


def has_signature(part: Any) -> bool:
    """Whether a part carries a thought signature where the google adapter reads it."""
    return options_signed(namespaces(part))


def options_signed(options: Mapping[str, Any]) -> bool:
    """:func:`has_signature` of a part whose provider options are ``options`` (a model's field,
    or a decoded part's ``providerOptions``, which a JSON walk has found to be a dict)."""
    for ns in GOOGLE_NAMESPACES:  # a loop: the walks ask it of every signed call
        found = options.get(ns)
        if isinstance(found, dict) and found.get("thoughtSignature") is not None:
            return True
    return False


class _GoogleRule(Rule):
    providers = frozenset({GOOGLE})
    scope = Scope.REQUEST


class GoogleForeignThoughtSignature(_GoogleRule):
    """Reasoning or thought signatures that Gemini did not issue.

    Three shapes: a reasoning part that carries only another provider's namespace (Anthropic
    thinking, OpenAI reasoning items); a signature kept under another provider's namespace on a
    part (``providerOptions.anthropic.signature`` on a text or tool call: converters that pick up
    any signature send it as ``thought_signature``); a Google ``thoughtSignature`` that cannot be
    Gemini's (not a string, not base64, such as two signatures concatenated).
    """

    id = "google-foreign-thought-signature"
    needs = frozenset({"google_unissued_signatures"})
    summary = "reasoning or thought signature that Gemini did not issue"
    choices = ("drop",)
    choice_docs = {
        "drop": "For this request: remove reasoning parts from other providers, and remove "
        "foreign or malformed signature fields from the other parts (a namespace left empty is "
        "removed). Never turns reasoning into text. What was removed is kept in the repair "
        "records.",
    }
    rejections = _REJECT_SIGNATURE
    example = Example(
        before=[
            ex.user("Plan a trip"),
            {
                "role": "assistant",
                "content": [
                    {
                        "type": "reasoning",
                        "text": "The user wants a plan...",
                        "providerOptions": {"anthropic": {"signature": "EqQBCkYIBxgC"}},
                    },
                    {
                        "type": "text",
                        "text": "Here is a plan.",
                        "providerOptions": {"anthropic": {"signature": "EqQBCkYIBxgC"}},
                    },
                ],
            },
            ex.user("Make it longer"),
        ],
        after=[
            ex.user("Plan a trip"),
            {"role": "assistant", "content": [{"type": "text", "text": "Here is a plan."}]},
            ex.user("Make it longer"),
        ],
        provider=GOOGLE,
    )

    def check(self, ctx: Context, choice: str) -> Iterator[Finding]:
        roles = ctx.index.roles
        for m, message in enumerate(ctx.messages):
            if roles[m] != "assistant" or isinstance(message.content, str):
                continue
            for p, part in enumerate(message.content):
                if part.provider_options is None:
                    continue
                if isinstance(part, ReasoningPart):
                    reason = self.drop_reason(part.provider_options)
                    if reason is not None:
                        yield Finding(
                            Action.REMOVE,
                            m,
                            p,
                            reason,
                            edits=(DropPart(m, p),),
                            removed=part,
                        )
                        continue
                cleaned, dropped = _clean_signatures(namespaces(part))
                if not dropped:
                    continue
                yield Finding(
                    Action.REPLACE,
                    m,
                    p,
                    f"{part.type} part carries a signature Gemini did not issue "
                    f"({', '.join(dropped)}); removed from the request",
                    edits=(SetPart(m, p, with_options(part, cleaned)),),
                    removed={"providerOptions": part.provider_options},
                    added={"providerOptions": cleaned} if cleaned else None,
                )

    @staticmethod
    def drop_reason(options: Mapping[str, Any] | None) -> str | None:
        """Why a reasoning part whose provider options are ``options`` (a model's field, or a
        decoded part's ``providerOptions``: :func:`heal.heal_json` removes such parts from the
        decoded text) is removed: it is another provider's alone; else None."""
        foreign = foreign_options(options, GOOGLE_NAMESPACES)
        if not foreign:
            return None
        return (
            f"reasoning from another provider ({', '.join(foreign)}) cannot be "
            "replayed to Gemini; removed from the request"
        )


def keeps_signatures(options: dict[str, Any]) -> bool:
    """Whether ``google-foreign-thought-signature`` leaves the provider options of a text or
    call part (or Google's own reasoning) as they are: no signature of another provider, no
    thought signature Gemini could not have issued."""
    return not _suspect(options)


def removes_reasoning(options: dict[str, Any]) -> bool:
    """Whether ``google-foreign-thought-signature`` removes a reasoning part whose provider
    options are ``options``: another provider's alone (its ``drop_reason``, without the
    words). It leaves one it does not remove as it is when it keeps its signatures
    (:func:`keeps_signatures`)."""
    return bool(foreign_options(options, GOOGLE_NAMESPACES))


def unissued(part: Any) -> bool:
    """Whether ``google-foreign-thought-signature`` finds anything in ``part`` of an assistant
    message (the index's fact ``google_unissued_signatures`` asks it of each): reasoning of
    another provider, or a signature Gemini did not issue."""
    options = part.provider_options
    if options is None:
        return False
    if isinstance(part, ReasoningPart) and foreign_options(options, GOOGLE_NAMESPACES):
        return True
    return _suspect(namespaces(part))


def _suspect(options: dict[str, Any]) -> bool:
    """Cheap test: whether ``_clean_signatures`` could remove anything."""
    for ns, value in options.items():
        if not isinstance(value, dict) or ns == HEAL_NAMESPACE:
            continue
        if ns in GOOGLE_NAMESPACES:
            if "thoughtSignature" in value and not valid_signature(value["thoughtSignature"]):
                return True
        else:
            for key in value:  # a loop: one or two keys, nearly always
                if "signature" in key.lower():
                    return True
    return False


def _clean_signatures(options: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """The options without foreign or malformed signatures, and the dotted keys removed."""
    if not _suspect(options):
        return options, []
    cleaned: dict[str, Any] = {}
    dropped: list[str] = []
    for ns, value in options.items():
        if not isinstance(value, dict) or ns == HEAL_NAMESPACE:
            cleaned[ns] = value
            continue
        if ns in GOOGLE_NAMESPACES:
            bad = [
                key
                for key in ("thoughtSignature",)
                if key in value and not valid_signature(value[key])
            ]
        else:
            bad = [key for key in value if "signature" in key.lower()]
        if not bad:
            cleaned[ns] = value
            continue
        dropped += [f"{ns}.{key}" for key in bad]
        kept = {key: item for key, item in value.items() if key not in bad}
        if kept:
            cleaned[ns] = kept
    return cleaned, dropped


class GoogleEmptyPart(_GoogleRule):
    """A part Gemini would receive empty, or that leaves a turn with no parts.

    An empty reasoning part (the adapter drops it, which can leave a model turn with no parts),
    an image or file part with no data, and a tool message that holds only approval responses
    (which are not sent) whose calls already have their results. (Empty text parts and empty
    messages are the shared rules' job. ai core 6 also filters out tool messages left empty
    of approval responses; other clients do not.)
    """

    id = "google-empty-part"
    # A user's plain images and image files (heal.rules.files.plain_image) all have data.
    needs = frozenset({"unplain_files", "unplain_images", "responses", "empty_reasoning"})
    summary = (
        "part that Gemini would get empty (empty reasoning, file without data, a tool message "
        "of only approval responses)"
    )
    choices = ("drop",)
    choice_docs = {
        "drop": "Remove the part (or the tool message of only approval responses) from this "
        "request; a message left empty is then removed. Nothing with content is lost; what "
        "was removed is kept in the repair records.",
    }
    rejections = (
        Rejection(
            "google",
            "* GenerateContentRequest.contents[41].parts: contents.parts must not be empty.",
            "langchain-ai/langchain-google#691; vercel/ai#3775, #4934",
            pattern=err.GOOGLE_EMPTY_CONTENT,
        ),
        Rejection(
            "google",
            "* ***.contents[2].parts[1].data: required oneof field 'data' must have one "
            "initialized field",
            "54xzh/FLIT PR#70",
            pattern=err.GOOGLE_EMPTY_CONTENT,
        ),
    )
    example = Example(
        before=[
            ex.user("hi"),
            {
                "role": "assistant",
                "content": [
                    {
                        "type": "reasoning",
                        "text": "",
                        "providerOptions": {"google": {"thoughtSignature": "CiQBjz1rX0Tm"}},
                    }
                ],
            },
            ex.user("hello?"),
        ],
        after=[ex.user("hi"), ex.user("hello?")],
        provider=GOOGLE,
    )

    def check(self, ctx: Context, choice: str) -> Iterator[Finding]:
        index = ctx.index
        for m, p, part in index.reasoning:
            if not part.text:
                yield Finding(
                    Action.REMOVE,
                    m,
                    p,
                    "reasoning part is empty (Gemini would get no part); removed",
                    edits=(DropPart(m, p),),
                    removed=part,
                )
        for m, message in enumerate(ctx.messages):
            content = message.content
            if isinstance(content, str) or index.roles[m] not in ("user", "assistant", "tool"):
                continue
            if index.roles[m] == "tool":
                if index.responses and _approvals_only(ctx, m):
                    yield Finding(
                        Action.REMOVE,
                        m,
                        None,
                        "tool message holds only approval responses, which are not sent, so "
                        "Gemini would get a turn with no parts; removed from the request",
                        edits=(DropMessage(m),),
                        removed=message,
                    )
                continue
            for p, item in enumerate(content):
                if isinstance(item, (ImagePart, FilePart)):
                    data = item.image if isinstance(item, ImagePart) else item.data
                    if not data:
                        yield Finding(
                            Action.REMOVE,
                            m,
                            p,
                            f"{item.type} part has no data; removed",
                            edits=(DropPart(m, p),),
                            removed=item,
                        )


def _approvals_only(ctx: Context, m: int) -> bool:
    """Whether tool message ``m`` holds only approval responses whose calls have results (a
    response whose call has no result yet is the caller's tool loop's to act on)."""
    content = ctx.messages[m].content
    if not content or not all(isinstance(part, ToolApprovalResponse) for part in content):
        return False
    pairing = ctx.index.pairing
    for part in content:
        assert isinstance(part, ToolApprovalResponse)
        requests = [
            ref
            for refs in pairing.requests.values()
            for ref in refs
            if ref[2].approval_id == part.approval_id
        ]
        if not requests or requests[0][2].tool_call_id not in pairing.results:
            return False
    return True


class GoogleContentToolResult(_GoogleRule):
    """A tool result whose content items would not make exactly one function response.

    For models before Gemini 3 the AI SDK google adapter turns each text item of a ``content``
    output into its own function response and media items into plain parts: a result of only
    an image, or of two texts, answers its call with zero or two function responses.
    """

    id = "google-content-tool-result"
    triggers = frozenset({"content_outputs"})
    summary = "content tool result with no text item, or with several"
    choices = ("one-text",)
    choice_docs = {
        "one-text": "For this request, join the text items into one (separated by blank lines) "
        f"in front of the other items, or add the text {MEDIA_RESULT_TEXT!r} when there is "
        "none. Loses nothing; the old output is kept in the repair record.",
    }
    rejections = (
        Rejection(
            "google",
            "Please ensure that the number of function response parts is equal to the number "
            "of function call parts of the function call turn.",
            "@ai-sdk/google 3.0.141 appendLegacyToolResultParts (observed locally); "
            "google-gemini/gemini-cli#4217",
            pattern=err.GOOGLE_FUNCTION_RESPONSE_COUNT,
        ),
    )
    example = Example(
        before=[
            ex.user("screenshot?"),
            {"role": "assistant", "content": [ex.call("c1", "screenshot")]},
            {
                "role": "tool",
                "content": [
                    {
                        "type": "tool-result",
                        "toolCallId": "c1",
                        "toolName": "screenshot",
                        "output": {
                            "type": "content",
                            "value": [
                                {"type": "media", "data": "iVBORw0KGgo=", "mediaType": "image/png"}
                            ],
                        },
                    }
                ],
            },
            {"role": "assistant", "content": "Here it is."},
            ex.user("thanks"),
        ],
        after=[
            ex.user("screenshot?"),
            {"role": "assistant", "content": [ex.call("c1", "screenshot")]},
            {
                "role": "tool",
                "content": [
                    {
                        "type": "tool-result",
                        "toolCallId": "c1",
                        "toolName": "screenshot",
                        "output": {
                            "type": "content",
                            "value": [
                                {"type": "text", "text": MEDIA_RESULT_TEXT},
                                {
                                    "type": "media",
                                    "data": "iVBORw0KGgo=",
                                    "mediaType": "image/png",
                                },
                            ],
                        },
                    }
                ],
            },
            {"role": "assistant", "content": "Here it is."},
            ex.user("thanks"),
        ],
        provider=GOOGLE,
    )

    def check(self, ctx: Context, choice: str) -> Iterator[Finding]:
        for m, p, result in ctx.index.content_outputs:
            output = result.output
            if not isinstance(output, ContentOutput) or ctx.index.roles[m] != "tool":
                continue
            texts = [item for item in output.value if item.get("type") == "text"]
            if len(texts) == 1:
                continue
            joined = "\n\n".join(str(item.get("text", "")) for item in texts)
            first: dict[str, Any] = {"type": "text", "text": joined or MEDIA_RESULT_TEXT}
            value = (first, *(item for item in output.value if item.get("type") != "text"))
            fixed = replaced(output, {"value": value})
            yield Finding(
                Action.REPLACE,
                m,
                p,
                f"content tool result has {len(texts)} text items, and Gemini would get "
                f"{len(texts)} function responses for one call; made it one text item",
                edits=(SetPart(m, p, replaced(result, {"output": fixed})),),
                tool_call_id=result.tool_call_id,
                removed={"output": output.model_dump(mode="json", exclude_unset=True)},
                added={"output": fixed.model_dump(mode="json", exclude_unset=True)},
            )


class GoogleFunctionCallTurn(_GoogleRule):
    """A function-call turn that does not follow a user turn or a function-response turn.

    Gemini accepts a model turn with function calls only right after a user turn or after
    function responses. Two shapes break it: a model turn split in two (text, then the calls in
    the next assistant message), and a history that starts with a function call (context
    trimming cut its head off mid tool loop; a leading result whose call was cut is
    ``orphan-tool-result``'s). The first is merged into one turn. The second gets a placeholder
    user turn in front by default: dropping the head instead loses the calls and results the
    model is working from, and leaves nothing to send when no user message is left, the usual
    state of a trimmed agent loop; the placeholder is marked, and exists in this request only.
    """

    id = "google-function-call-turn"
    triggers = frozenset({"calls"})
    needs = frozenset({"head_not_user", "same_role_runs"})
    summary = (
        "assistant message with tool calls follows an assistant message, or starts the history"
    )
    choices = ("merge", "merge-drop-head", "report")
    choice_docs = {
        "merge": "Merge the assistant messages right before it into one turn with it (parts "
        "kept, in order); before a function-call turn that starts the history, "
        + LEAD_CHOICE_DOCS["placeholder-user"][0].lower()
        + LEAD_CHOICE_DOCS["placeholder-user"][1:],
        "merge-drop-head": "Merge as merge does; when a function-call turn starts the history: "
        + LEAD_CHOICE_DOCS["drop"][0].lower()
        + LEAD_CHOICE_DOCS["drop"][1:],
        "report": "Report every such turn; change nothing.",
    }
    rejections = (
        Rejection(
            "google",
            "Please ensure that function call turn comes immediately after a user turn or after "
            "a function response turn.",
            "google-gemini/gemini-cli#11814 (history starting with a function call), #26486; "
            "continuedev/continue#11164",
            pattern=err.GOOGLE_FUNCTION_CALL_TURN_ORDER,
        ),
    )
    example = Example(
        before=[
            ex.user("weather?"),
            {"role": "assistant", "content": "Let me check."},
            {"role": "assistant", "content": [ex.call("c1")]},
            {"role": "tool", "content": [ex.result("c1")]},
            {"role": "assistant", "content": "Sunny."},
            ex.user("thanks"),
        ],
        after=[
            ex.user("weather?"),
            {
                "role": "assistant",
                "content": [{"type": "text", "text": "Let me check."}, ex.call("c1")],
            },
            {"role": "tool", "content": [ex.result("c1")]},
            {"role": "assistant", "content": "Sunny."},
            ex.user("thanks"),
        ],
        provider=GOOGLE,
    )

    def check(self, ctx: Context, choice: str) -> Iterator[Finding]:
        index = ctx.index
        if not index.calls:
            return
        roles = index.roles
        seen: set[int] = set()
        for m, _, call in index.calls:
            if m in seen or call.provider_executed or roles[m] != "assistant":
                continue
            seen.add(m)
            start = m
            while start > 0 and roles[start - 1] == "assistant":
                start -= 1
            before = start - 1
            while before >= 0 and roles[before] == "system":
                before -= 1
            if any(blank(ctx.messages[k]) for k in range(start, m)):
                continue  # empty-message removes it first
            head = before < 0
            why = "the history starts with a function-call turn, and Gemini wants a user turn first"
            if head and choice == "merge-drop-head":
                # The dropped head takes any split text turn with it: nothing left to merge.
                yield from lead_with_user(ctx, start, "drop", why)
                continue
            if choice != "report" and start < m:
                yield from merge_run(ctx, range(start, m + 1), "Gemini wants one model turn")
            elif start < m:
                yield Finding(
                    Action.REPORT,
                    m,
                    None,
                    "function-call turn follows another model turn; Gemini rejects it (merge "
                    "the two assistant messages)",
                )
                continue
            if head and choice == "merge":
                yield from lead_with_user(ctx, start, "placeholder-user", why)
            elif head:
                yield Finding(
                    Action.REPORT,
                    start,
                    None,
                    "the history starts with a function-call turn, and Gemini wants a user "
                    "turn before it: add a user message before it, or choose merge or "
                    "merge-drop-head",
                )


class GoogleMissingThoughtSignature(_GoogleRule):
    """A step of the current turn whose first function call has no thought signature.

    Gemini 3 validates thought signatures in the current turn (everything after the last user
    message): the first function call of each step must carry the signature Gemini issued. A
    history from another provider, or one whose metadata was lost, has none; Google documents
    ``skip_thought_signature_validator`` for exactly this case. (The AI SDK google adapter
    injects it too, but only for models it knows to be Gemini 3.) With the target's model known
    to be Gemini 2.5 or earlier (``model="gemini-2.5-flash"``), which does not validate
    signatures, the rule does not run; with no model, it does (the conservative default).
    """

    id = "google-missing-thought-signature"
    triggers = frozenset({"calls"})
    needs = frozenset({"unsigned_turn_calls"})
    summary = "first tool call of a step in the current turn has no thought signature"
    choices = ("skip-validator",)
    choice_docs = {
        "skip-validator": f"Set providerOptions.google.thoughtSignature to "
        f"{SKIP_THOUGHT_SIGNATURE!r} on that call, for this request only (in the part's "
        "existing vertex or googleVertex options too, when it has them). Loses nothing.",
    }
    rejections = (
        Rejection(
            "google",
            "Function call is missing a thought_signature in functionCall parts. This is "
            "required for tools to work correctly, and missing thought_signature may lead to "
            "degraded model performance. Additional data, function call `default_api:Task` , "
            "position 2. Please refer to https://ai.google.dev/gemini-api/docs/thought-"
            "signatures for more details.",
            "ai.google.dev/gemini-api/docs/thought-signatures; lbjlaq/Antigravity-Manager#139; "
            "vercel/ai#10560",
            pattern=err.GOOGLE_MISSING_THOUGHT_SIGNATURE,
        ),
        *_REJECT_SIGNATURE,
    )
    example = Example(
        before=[
            ex.user("weather?"),
            {"role": "assistant", "content": [ex.call("c1"), ex.call("c2")]},
            {"role": "tool", "content": [ex.result("c1"), ex.result("c2")]},
        ],
        after=[
            ex.user("weather?"),
            {
                "role": "assistant",
                "content": [
                    ex.call(
                        "c1",
                        providerOptions={"google": {"thoughtSignature": SKIP_THOUGHT_SIGNATURE}},
                    ),
                    ex.call("c2"),
                ],
            },
            {"role": "tool", "content": [ex.result("c1"), ex.result("c2")]},
        ],
        provider=GOOGLE,
    )

    def enabled_for(self, target: Target) -> bool | None:
        # Gemini 2.5 and earlier do not validate signatures: nothing to inject. Unknown model:
        # inject (the dummy is documented and harmless where it is not needed).
        return False if target.facts.thought_signatures_required is False else None

    def check(self, ctx: Context, choice: str) -> Iterator[Finding]:
        index = ctx.index
        if not index.calls:
            return
        roles = index.roles
        last_user = max((i for i, role in enumerate(roles) if role == "user"), default=-1)
        seen: set[int] = set()
        for m, p, call in index.calls:
            if m <= last_user or m in seen or roles[m] != "assistant" or call.provider_executed:
                continue
            seen.add(m)
            if has_signature(call):
                continue
            new = with_options(call, _with_dummy(namespaces(call)))
            yield Finding(
                Action.REPLACE,
                m,
                p,
                f"first tool call of a step in the current turn ({call.tool_name!r}) has no "
                f"thought signature; set Google's documented {SKIP_THOUGHT_SIGNATURE!r}",
                edits=(SetPart(m, p, new),),
                tool_call_id=call.tool_call_id,
                removed=None,
                added={"providerOptions": new.provider_options},
            )


def _with_dummy(options: dict[str, Any]) -> dict[str, Any]:
    out = dict(options)
    present = [ns for ns in GOOGLE_NAMESPACES if isinstance(out.get(ns), dict)]
    for ns in present or [GOOGLE]:
        out[ns] = {**out.get(ns, {}), "thoughtSignature": SKIP_THOUGHT_SIGNATURE}
    return out

"""Heal's output, judged by the real AI SDK provider packages and checked against each API's rules.

For each of the six wire formats, a reproducible batch of histories is drawn from the property
strategies (broken and valid ones), healed for that provider, dumped with ``dump_messages`` and
sent through the interop judge (``judge.mjs``: ``generateText`` with the real provider package
and a fake ``fetch``) in ONE batch. Every case must pass the AI SDK (schema, ai core's prompt
validation and the provider's conversion), and the request body the provider would have
received is then checked against what that API rejects (``/work/shared/reference/
provider-rules.md``, cited by section below): the AI SDK does not enforce most of those rules
itself, so a history the SDK converts without complaint can still get a 400 from the provider.

The batches are drawn by hypothesis with a fixed seed per provider (reproducible, no shrinking),
and the judge runs once per provider, not once per history. A failure lists every failing
case with the judge error or the violated rule, the healed history and the request body.
"""

from __future__ import annotations

import json
import re
import zlib
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st

from heal import Action, ProviderId, dump_messages, heal_messages, validate_messages
from heal.providers import ProviderProfile, get_profile
from tests.interop.judge import JudgeResult, judge
from tests.strategies import broken_histories, valid_histories

pytestmark = pytest.mark.interop

History = list[dict[str, Any]]
Body = dict[str, Any]
Check = Callable[[Body, ProviderProfile], Iterator[str]]

PROVIDERS: tuple[ProviderId, ...] = (
    "anthropic",
    "bedrock",
    "openai-chat",
    "openai-responses",
    "google",
    "mistral",
)
"""Provider ids that are also judge targets (same names)."""

BROKEN_PER_BATCH = 120
VALID_PER_BATCH = 60
SHOWN_IN_DETAIL = 12
"""Distinct kinds of failure shown with a whole example: input, healed history and body."""

_NAME_64 = re.compile(r"[a-zA-Z0-9_-]{1,64}")
_ANTHROPIC_ID = re.compile(r"[a-zA-Z0-9_-]+")
_ANTHROPIC_SERVER_ID = re.compile(r"srvtoolu_[a-zA-Z0-9_]+")
_BEDROCK_ID = re.compile(r"[a-zA-Z0-9_-]{1,64}")
_MISTRAL_ID = re.compile(r"[a-zA-Z0-9]{9}")


def _blank(text: Any) -> bool:
    return isinstance(text, str) and not text.strip()


def _json_object(text: Any) -> bool:
    if not isinstance(text, str):
        return False
    try:
        return isinstance(json.loads(text), dict)
    except ValueError:
        return False


# --- body checks, one per provider ----------------------------------------------------------
#
# Each yields one readable line per violation: where (the body's own path, as the provider would
# name it), what, and the section of provider-rules.md that says the API rejects it.


def check_anthropic(body: Body, profile: ProviderProfile) -> Iterator[str]:
    """Anthropic Messages API (provider-rules.md §1)."""
    messages = body["messages"]
    seen_ids: set[str] = set()
    # The latest assistant message holding signed thinking goes back byte-identical, blank
    # separators between signed blocks included (§1(e), §1(g)): its blank text is expected.
    latest_signed = max(
        (
            k
            for k, message in enumerate(messages)
            if message["role"] == "assistant"
            and isinstance(message["content"], list)
            and any(b["type"] in ("thinking", "redacted_thinking") for b in message["content"])
        ),
        default=-1,
    )
    for k, message in enumerate(messages):
        role, content = message["role"], message["content"]
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        where = f"messages.{k}"
        if not blocks and not (role == "assistant" and k == len(messages) - 1):
            yield f"{where}: empty content (§1(g) all messages must have non-empty content)"
        uses: list[str] = []
        after_tool_use = False
        for j, block in enumerate(blocks):
            at, kind = f"{where}.content.{j}", block["type"]
            if kind == "text":
                if _blank(block["text"]) and k != latest_signed:
                    yield f"{at}: blank text block {block['text']!r} (§1(g) non-whitespace text)"
                if after_tool_use:
                    yield f"{at}: text after a tool_use block in the same message (§1(a))"
            elif kind == "tool_use":
                after_tool_use = True
                uses.append(block["id"])
                if not _NAME_64.fullmatch(block["name"]):
                    yield f"{at}: tool_use.name {block['name']!r} (§1(b) ^[a-zA-Z0-9_-]{{1,64}}$)"
                if not _ANTHROPIC_ID.fullmatch(block["id"]):
                    yield f"{at}: tool_use.id {block['id']!r} (§1(c) ^[a-zA-Z0-9_-]+$)"
                if not isinstance(block.get("input"), dict):
                    yield f"{at}: tool_use.input {block.get('input')!r} is not an object (§1(d))"
            elif kind == "server_tool_use":
                if not _ANTHROPIC_SERVER_ID.fullmatch(block["id"]):
                    yield (
                        f"{at}: server_tool_use.id {block['id']!r} (§1(c) "
                        "^srvtoolu_[a-zA-Z0-9_]+$; drop server-tool blocks with foreign ids)"
                    )
            elif kind == "thinking":
                if not block.get("signature"):
                    yield f"{at}: thinking block without signature (§1(e))"
            elif kind == "tool_result":
                result = block.get("content")
                nested = (
                    [{"type": "text", "text": result}] if isinstance(result, str) else result or []
                )
                for n, item in enumerate(nested):
                    if item.get("type") == "text" and _blank(item.get("text")):
                        yield (
                            f"{at}.content.{n}: blank text {item.get('text')!r} inside tool_result "
                            "(§1(g) text blocks must be non-empty, including inside tool_result)"
                        )
            elif kind == "image" and role == "assistant":
                yield f"{at}: image block in an assistant turn (§1(h))"
        for tool_use_id in uses:
            if tool_use_id in seen_ids:
                yield f"{where}: tool_use id {tool_use_id!r} is not unique (§1(a))"
            seen_ids.add(tool_use_id)
        final = role == "assistant" and k == len(messages) - 1
        if final and blocks and blocks[-1]["type"] in ("thinking", "redacted_thinking"):
            yield f"{where}: final assistant message ends with a thinking block (§1(e))"
        # Pairing is positional: the results of this message's tool_use blocks are in the next
        # message, which is a user message (§1(a)).
        if uses:
            nxt = messages[k + 1] if k + 1 < len(messages) else None
            answered = _anthropic_results(nxt) if nxt and nxt["role"] == "user" else []
            missing = [u for u in uses if u not in answered]
            if missing:
                yield (
                    f"{where}: tool_use ids {missing} have no tool_result in the next message "
                    "(§1(a) each tool_use needs a tool_result immediately after)"
                )
        if role == "user":
            results = _anthropic_results(message)
            previous = messages[k - 1] if k > 0 else None
            called = (
                {b["id"] for b in previous["content"] if b["type"] == "tool_use"}
                if previous
                and previous["role"] == "assistant"
                and isinstance(previous["content"], list)
                else set()
            )
            for tool_use_id in results:
                if tool_use_id not in called:
                    yield (
                        f"{where}: tool_result {tool_use_id!r} has no tool_use in the previous "
                        "message (§1(a))"
                    )
            duplicated = sorted({r for r in results if results.count(r) > 1})
            if duplicated:
                yield f"{where}: several tool_result blocks for {duplicated} (§1(a))"


def _anthropic_results(message: Any) -> list[str]:
    if message is None or isinstance(message["content"], str):
        return []
    return [b["tool_use_id"] for b in message["content"] if b["type"] == "tool_result"]


def _chat_tool_blocks(
    messages: list[dict[str, Any]], *, provider: str, user_after_tool: bool
) -> Iterator[str]:
    """Chat-Completions-style pairing (OpenAI §2(a), Mistral §6(a)/(f)): an assistant message
    with ``tool_calls`` is followed immediately by one tool message per id, and a tool message
    only answers the assistant message right before its block."""
    open_ids: list[str] | None = None  # the ids of the tool block being read
    answered: list[str] = []
    for k, message in enumerate(messages):
        role = message["role"]
        if role == "tool":
            if open_ids is None:
                yield (
                    f"messages.{k}: tool message {message.get('tool_call_id')!r} does not follow "
                    f"an assistant message with tool_calls ({provider})"
                )
                continue
            tool_call_id = message.get("tool_call_id", "")
            if tool_call_id not in open_ids:
                yield (
                    f"messages.{k}: tool_call_id {tool_call_id!r} not in the tool_calls "
                    f"{open_ids} of the previous assistant message ({provider})"
                )
            elif tool_call_id in answered:
                yield f"messages.{k}: second tool message for {tool_call_id!r} ({provider})"
            answered.append(tool_call_id)
            continue
        if open_ids is not None:
            missing = [i for i in open_ids if i not in answered]
            if missing:
                yield (
                    f"messages.{k}: {role} message before tool messages answered {missing} "
                    f"({provider}: each tool_call_id needs a tool message right after)"
                )
            if role == "user" and not user_after_tool and answered:
                yield f"messages.{k}: user message directly after a tool message ({provider})"
        open_ids, answered = None, []
        if role == "assistant" and message.get("tool_calls"):
            open_ids = [call["id"] for call in message["tool_calls"]]
    if open_ids is not None and [i for i in open_ids if i not in answered]:
        yield f"end: tool_calls {open_ids} not all answered ({provider})"


def check_openai_chat(body: Body, profile: ProviderProfile) -> Iterator[str]:
    """OpenAI Chat Completions (provider-rules.md §2)."""
    messages = body["messages"]
    yield from _chat_tool_blocks(messages, provider="§2(a)", user_after_tool=True)
    for k, message in enumerate(messages):
        role = message["role"]
        calls = message.get("tool_calls") or []
        for j, call in enumerate(calls):
            at = f"messages[{k}].tool_calls[{j}]"
            if not profile.accepts_tool_call_id(call["id"]):
                yield (
                    f"{at}.id {call['id']!r} ({len(call['id'])} chars; heal's profile allows "
                    f"{profile.tool_call_id_max}; §2(c) at most 40)"
                )
            name = call["function"]["name"]
            if not _NAME_64.fullmatch(name):
                yield f"{at}.function.name {name!r} (§2(b) ^[a-zA-Z0-9_-]+$, at most 64)"
            if not _json_object(call["function"]["arguments"]):
                yield f"{at}.function.arguments {call['function']['arguments']!r} (§2(d))"
        if message.get("content") is None and not (role == "assistant" and calls):
            yield f"messages[{k}].content is null on a {role} message (§2(g))"
        content = message.get("content")
        images = isinstance(content, list) and any(p.get("type") == "image_url" for p in content)
        if role != "user" and images:
            yield f"messages[{k}]: image URL in a {role} message (§2(h))"


def check_openai_responses(body: Body, profile: ProviderProfile) -> Iterator[str]:
    """OpenAI Responses (provider-rules.md §3)."""
    items = body["input"]
    calls: dict[str, int] = {}
    outputs: dict[str, int] = {}
    item_ids: set[str] = set()
    for k, item in enumerate(items):
        at, kind = f"input[{k}]", item.get("type")
        item_id = item.get("id")
        if isinstance(item_id, str):
            if item_id in item_ids:
                yield f"{at}: duplicate item id {item_id!r} (§3(a))"
            item_ids.add(item_id)
        if kind == "function_call":
            call_id = item["call_id"]
            if call_id in calls:
                yield f"{at}: second function_call with call_id {call_id!r} (§3(a))"
            calls.setdefault(call_id, k)
            if not profile.accepts_tool_call_id(call_id):
                yield f"{at}.call_id {call_id!r} (heal's profile: at most 64 of [a-zA-Z0-9_-])"
            if not _NAME_64.fullmatch(item["name"]):
                yield f"{at}.name {item['name']!r} (§3 function names as §2(b))"
            if not _json_object(item.get("arguments")):
                yield f"{at}.arguments {item.get('arguments')!r} is not a JSON object string"
            if isinstance(item_id, str) and not item_id.startswith("fc"):
                yield f"{at}.id {item_id!r} does not begin with 'fc' (§3(a))"
        elif kind == "function_call_output":
            call_id = item["call_id"]
            if call_id not in calls:
                yield (
                    f"{at}: function_call_output {call_id!r} has no earlier function_call "
                    "(§3(a) No tool call found for function call output)"
                )
            if call_id in outputs:
                yield f"{at}: second function_call_output for {call_id!r} (§3(a))"
            outputs.setdefault(call_id, k)
    for call_id, k in calls.items():
        if call_id not in outputs:
            yield (
                f"input[{k}]: function_call {call_id!r} has no function_call_output "
                "(§3(a) No tool output found for function call)"
            )


def check_google(body: Body, profile: ProviderProfile) -> Iterator[str]:
    """Gemini generateContent (provider-rules.md §4)."""
    contents = body["contents"]

    def calls(content: dict[str, Any]) -> int:
        return sum("functionCall" in p for p in content["parts"])

    def responses(content: dict[str, Any]) -> int:
        return sum("functionResponse" in p for p in content["parts"])

    for k, content in enumerate(contents):
        at, role, parts = f"contents[{k}]", content["role"], content["parts"]
        if role not in ("user", "model"):
            yield f"{at}: role {role!r} (§4(f) only user and model)"
        if not parts:
            yield f"{at}.parts: contents.parts must not be empty (§4(g))"
        for j, part in enumerate(parts):
            if part.get("text") == "":
                yield f"{at}.parts[{j}]: empty text part (§4(g))"
            if "functionCall" in part:
                name = part["functionCall"]["name"]
                if not profile.valid_tool_name(name):
                    yield f"{at}.parts[{j}].functionCall.name {name!r} (§4(b))"
                if not isinstance(part["functionCall"].get("args", {}), dict):
                    yield f"{at}.parts[{j}].functionCall.args is not an object (§4(c)/(d))"
        previous = contents[k - 1] if k > 0 else None
        if role == "model" and calls(content) and (previous is None or previous["role"] != "user"):
            yield (
                f"{at}: function call turn does not come immediately after a user turn or "
                "a function response turn (§4(a))"
            )
        if responses(content):
            if previous is None or previous["role"] != "model" or not calls(previous):
                yield (
                    f"{at}: function response turn does not come immediately after a function "
                    "call turn (§4(a))"
                )
            elif responses(content) != calls(previous):
                yield (
                    f"{at}: {responses(content)} function response parts for the "
                    f"{calls(previous)} function call parts of contents[{k - 1}] (§4(a))"
                )
        unanswered = k + 1 < len(contents) and not responses(contents[k + 1])
        if role == "model" and calls(content) and unanswered:
            yield (
                f"{at}: function call turn is not followed by a function response turn "
                f"(§4(a): the number of responses must equal the {calls(content)} calls)"
            )


def check_bedrock(body: Body, profile: ProviderProfile) -> Iterator[str]:
    """Bedrock Converse (provider-rules.md §5)."""
    messages = body["messages"]
    if messages and messages[0]["role"] != "user":
        yield "messages.0: a conversation must start with a user message (§5(f))"
    for k, message in enumerate(messages):
        at, role, blocks = f"messages.{k}", message["role"], message["content"]
        if k > 0 and messages[k - 1]["role"] == role:
            yield f"{at}: two {role} messages in a row (§5(f) roles must alternate)"
        if not blocks:
            yield f"{at}: the content field is empty (§5(g))"
        uses: list[str] = []
        results: list[str] = []
        has_text = any("text" in b for b in blocks)
        for j, block in enumerate(blocks):
            where = f"{at}.content.{j}"
            if "text" in block and _blank(block["text"]):
                yield f"{where}: the text field is blank {block['text']!r} (§5(g))"
            if "toolUse" in block:
                use = block["toolUse"]
                uses.append(use["toolUseId"])
                if not _NAME_64.fullmatch(use["name"]):
                    yield f"{where}.toolUse.name {use['name']!r} (§5(b) [a-zA-Z0-9_-]{{1,64}})"
                if not _BEDROCK_ID.fullmatch(use["toolUseId"]):
                    yield f"{where}.toolUse.toolUseId {use['toolUseId']!r} (§5(c))"
                if not isinstance(use.get("input"), dict):
                    yield f"{where}.toolUse.input is not an object (§5(d))"
            if "toolResult" in block:
                result = block["toolResult"]
                results.append(result["toolUseId"])
                nested = result.get("content") or []
                if result.get("status") == "error" and not nested:
                    yield f"{where}.toolResult: empty content with status error (§5(a))"
                for n, item in enumerate(nested):
                    if "text" in item and _blank(item["text"]):
                        yield f"{where}.toolResult.content.{n}: blank text (§5(g))"
            if "reasoningContent" in block:
                reasoning = block["reasoningContent"]
                signed = reasoning.get("reasoningText", {}).get("signature")
                if not signed and "redactedContent" not in reasoning:
                    yield f"{where}: unsigned reasoningContent (§5(e))"
            if "document" in block and not has_text:
                yield f"{where}: document without a text block in the message (§5(g)/(h))"
        if len(set(uses)) != len(uses):
            yield f"{at}: duplicate toolUse ids {uses} (§5(a))"
        if results:
            previous = messages[k - 1] if k > 0 else None
            called = [
                b["toolUse"]["toolUseId"]
                for b in (
                    previous["content"] if previous and previous["role"] == "assistant" else []
                )
                if "toolUse" in b
            ]
            if len(results) > len(called):
                yield (
                    f"{at}: {len(results)} toolResult blocks exceed the {len(called)} toolUse "
                    "blocks of the previous turn (§5(a))"
                )
            strays = [r for r in results if r not in called]
            if strays:
                yield f"{at}: toolResult ids {strays} not used in the previous turn (§5(a))"
        if uses:
            nxt = messages[k + 1] if k + 1 < len(messages) else None
            answered = [
                b["toolResult"]["toolUseId"]
                for b in (nxt["content"] if nxt and nxt["role"] == "user" else [])
                if "toolResult" in b
            ]
            missing = [u for u in uses if u not in answered]
            if missing and nxt is not None:
                yield f"messages.{k + 1}: expected toolResult blocks for the ids {missing} (§5(a))"


def check_mistral(body: Body, profile: ProviderProfile) -> Iterator[str]:
    """Mistral chat completions (provider-rules.md §6)."""
    messages = body["messages"]
    yield from _chat_tool_blocks(messages, provider="§6(a)/(f)", user_after_tool=False)
    for k, message in enumerate(messages):
        for j, call in enumerate(message.get("tool_calls") or []):
            at = f"messages[{k}].tool_calls[{j}]"
            if not _MISTRAL_ID.fullmatch(call["id"]):
                yield f"{at}.id {call['id']!r} (§6(c) exactly 9 of a-z, A-Z, 0-9)"
            name = call["function"]["name"]
            if not _NAME_64.fullmatch(name):
                yield f"{at}.function.name {name!r} (§6(b))"
        if message["role"] == "tool" and not _MISTRAL_ID.fullmatch(message["tool_call_id"]):
            yield f"messages[{k}].tool_call_id {message['tool_call_id']!r} (§6(c))"


BODY_CHECKS: dict[ProviderId, Check] = {
    "anthropic": check_anthropic,
    "bedrock": check_bedrock,
    "openai-chat": check_openai_chat,
    "openai-responses": check_openai_responses,
    "google": check_google,
    "mistral": check_mistral,
}


# --- the batch -----------------------------------------------------------------------------


def _parts(message: dict[str, Any]) -> list[dict[str, Any]]:
    content = message["content"]
    return [] if isinstance(content, str) else list(content)


def awaits_approval(history: History) -> bool:
    """True when the history ends with an assistant message whose open tool calls all carry an
    approval request and at least one has no approval response yet.

    ai core refuses such a prompt BY DESIGN (AI_MissingToolResultsError; see
    ``test_interop_smoke.test_ai_core_facts``): a pending approval waits for the user, it is not
    a sendable request. heal deliberately leaves these calls for the caller's tool loop (the
    ``orphan-tool-call`` rule skips a call with an approval request at the end of the history),
    so such histories cannot be judged. An approved-but-not-run call IS judged (the judge's stub
    executes it, as the app's tool loop would).
    """
    end = len(history) - 1
    while end >= 0 and history[end]["role"] == "tool":
        end -= 1
    if end < 0 or history[end]["role"] != "assistant":
        return False
    turn = _parts(history[end])
    later = [p for m in history[end + 1 :] for p in _parts(m)]
    results = {p["toolCallId"] for p in [*turn, *later] if p["type"] == "tool-result"}
    responses = {p["approvalId"] for p in later if p["type"] == "tool-approval-response"}
    requests = {
        p["toolCallId"]: p["approvalId"] for p in turn if p["type"] == "tool-approval-request"
    }
    open_calls = [
        p["toolCallId"]
        for p in turn
        if p["type"] == "tool-call"
        and not p.get("providerExecuted")
        and p["toolCallId"] not in results
    ]
    return (
        bool(open_calls)
        and all(c in requests for c in open_calls)
        and any(requests[c] not in responses for c in open_calls)
    )


def _show(value: Any) -> str:
    return json.dumps(value, ensure_ascii=True)


def judge_healed_batch(provider: ProviderId, histories: list[History]) -> list[str]:
    """Heal every history for ``provider``, judge them all in one batch, check every body.
    Returns one failure report per failing case (empty when all pass)."""
    cases: list[dict[str, Any]] = []
    inputs: dict[str, History] = {}
    for n, history in enumerate(histories):
        outcome = heal_messages(history, provider=provider)
        healed = dump_messages(outcome.messages)
        if awaits_approval(healed):
            continue  # refused by ai core by design, see awaits_approval
        if any(r.action is Action.REPORT for r in outcome.repairs):
            # heal said no edit can make this history sendable (all messages empty, a lost
            # signature, blank text in a message the provider forbids editing): not judged.
            continue
        case_id = f"{provider}#{n}"
        inputs[case_id] = history
        cases.append({"id": case_id, "target": provider, "messages": healed})
    # Exclusion must stay the exception, or the test would judge nothing. (For anthropic about
    # a quarter of the drawn histories mix signed thinking with an unsigned tool loop, which
    # heal rightly reports as unfixable: anthropic-tool-loop-thinking.)
    assert len(cases) >= len(histories) * 2 // 3, f"{len(histories) - len(cases)} excluded"

    results: list[JudgeResult] = judge(cases)
    profile = get_profile(provider)
    failures: list[tuple[str, str, dict[str, Any], JudgeResult]] = []
    for case, result in zip(cases, results, strict=True):
        if not result["ok"]:
            problem = f"judge: stage={result['stage']} {result['error']}"
        elif not isinstance(result["body"], dict):
            problem = f"judge: no request body captured ({result['body']!r})"
        else:
            violations = list(BODY_CHECKS[provider](result["body"], profile))
            if not violations:
                continue
            problem = "body: " + "; ".join(violations)
        failures.append((str(case["id"]), problem, case, result))

    reports = [f"{case_id}: {problem}" for case_id, problem, _, _ in failures]
    # One worked example per kind of failure (the smallest healed history of the kind).
    kinds: dict[str, list[tuple[str, str, dict[str, Any], JudgeResult]]] = {}
    for failure in failures:
        kinds.setdefault(_kind(failure[1].split("; ")[0]), []).append(failure)
    for same in list(kinds.values())[:SHOWN_IN_DETAIL]:
        case_id, problem, case, result = min(same, key=lambda f: len(_show(f[2]["messages"])))
        # Whether heal knew: a REPORT finding (a problem heal leaves to the caller) shows here.
        own = validate_messages(case["messages"], provider=provider)
        reports.append(
            f"--- {len(same)} case(s) of this kind; smallest: {case_id}: {problem}\n"
            f"input:  {_show(inputs[case_id])}\nhealed: {_show(case['messages'])}\n"
            f"body:   {_show(result['body'])}\nheal's own validation: {own.report()}"
        )
    return reports


def _kind(problem: str) -> str:
    """A failure with its ids, indices and quoted values blanked out, to group alike ones."""
    problem = re.sub(r"'[^']*'|\"[^\"]*\"|\[[^\]]*\]", "_", problem)
    return re.sub(r"\d+", "N", problem)


def draw_batch(strategy: st.SearchStrategy[History], size: int, key: str) -> list[History]:
    """``size`` histories drawn by hypothesis, the same ones on every run (seeded by ``key``).

    One hypothesis example cannot hold a whole batch (40 histories overrun its per-example data
    limit, and generation then never finishes), so a small inner test collects one history per
    example, without shrinking or database.
    """
    drawn: list[History] = []

    @seed(zlib.crc32(key.encode()))
    @settings(
        max_examples=size,
        derandomize=False,  # the seed makes it reproducible, and differ per provider
        database=None,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(strategy)
    def collect(history: History) -> None:
        drawn.append(history)

    collect()
    assert len(drawn) >= size * 9 // 10, f"hypothesis drew only {len(drawn)} histories"
    return drawn[:size]


@pytest.mark.parametrize("provider", PROVIDERS)
def test_healed_histories_pass_the_real_provider(provider: ProviderId) -> None:
    broken = draw_batch(broken_histories(), BROKEN_PER_BATCH, f"broken {provider}")
    valid = draw_batch(valid_histories(), VALID_PER_BATCH, f"valid {provider}")
    failures = judge_healed_batch(provider, broken + valid)
    assert not failures, f"{provider}: {len(failures)} report line(s)\n" + "\n".join(failures)


# --- the checks themselves -------------------------------------------------------------------


def test_body_checks_catch_what_the_providers_reject() -> None:
    """Each body check flags a known-bad request body (so a passing run means something)."""
    bad_anthropic = {
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": " "}]},
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "a:b", "name": "x y", "input": "s"}],
            },
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "zz"}]},
        ]
    }
    bad_chat = {
        "messages": [
            {"role": "user", "content": "hi"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "c" * 41,
                        "type": "function",
                        "function": {"name": "f", "arguments": "[]"},
                    }
                ],
            },
            {"role": "user", "content": "hi"},
            {"role": "tool", "tool_call_id": "c" * 41, "content": ""},
        ]
    }
    bad_responses = {
        "input": [
            {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "c2", "output": ""},
        ]
    }
    bad_google = {
        "contents": [
            {"role": "model", "parts": [{"functionCall": {"name": "f", "args": {}}}]},
            {"role": "user", "parts": []},
        ]
    }
    bad_bedrock = {
        "messages": [
            {
                "role": "assistant",
                "content": [{"toolUse": {"toolUseId": "c", "name": "f", "input": {}}}],
            },
            {"role": "user", "content": [{"text": " "}]},
            {"role": "user", "content": [{"toolResult": {"toolUseId": "c", "content": []}}]},
        ]
    }
    bad_mistral = {
        "messages": [
            {"role": "user", "content": "hi"},
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [{"id": "call_1", "function": {"name": "f", "arguments": "{}"}}],
            },
            {"role": "tool", "tool_call_id": "call_1", "content": ""},
            {"role": "user", "content": "hi"},
        ]
    }
    expected: dict[ProviderId, tuple[Body, tuple[str, ...]]] = {
        "anthropic": (bad_anthropic, ("blank text", "tool_use.name", "tool_use.id", "no tool_use")),
        "openai-chat": (bad_chat, ("40", "arguments", "tool_call_id")),
        "openai-responses": (bad_responses, ("no function_call_output", "no earlier")),
        "google": (bad_google, ("immediately after a user turn", "must not be empty")),
        "bedrock": (bad_bedrock, ("start with a user", "blank", "two user", "expected toolResult")),
        "mistral": (bad_mistral, ("exactly 9", "user message directly after a tool")),
    }
    for provider, (body, needles) in expected.items():
        found = "\n".join(BODY_CHECKS[provider](body, get_profile(provider)))
        for needle in needles:
            assert needle in found, f"{provider}: {needle!r} not in\n{found}"

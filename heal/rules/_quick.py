"""The quick verdict: "clean" for the common histories, without building the index.

Most histories heal to themselves, and :class:`~heal.rules._index.HistoryIndex` spends most of
a clean heal listing what no rule will be asked about: a reference for every call and result,
the role of every message, the ids and names for the facts. :func:`quickly_clean` walks the
models once and lists nothing but the call ids and tool names; it answers for the plain shapes
alone (text, tool calls each answered in the tool messages right after, reasoning where no rule
reads it, or where the facts the rules read of it are ones it answers: Claude's signed thinking,
Gemini's thoughts and signatures, OpenAI's reasoning items) and gives up, at the first part that
is anything else, to the index, which decides as before. So it is exact in one direction:
quickly clean implies that the index finds the plan's verdict clean
(:meth:`HistoryIndex.clean`), and the engine returns the history as it is.

What it must check follows from the plan's verdict, the trigger lists and facts its rules need
(:func:`quick_terms`): a fact such as ``final_assistant`` or ``same_role_runs`` rules out a shape
that is plain for other plans, and a trigger list that the verdict does not name (``reasoning``
for provider None) lets the parts it lists stand.

The walk is held to the index by property tests (``tests/test_quick.py``): on generated
histories, broken and healed, for every provider and target, quickly clean implies the index's
clean verdict; on the benchmark corpus the two agree.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache, partial
from typing import TYPE_CHECKING, Any, cast

from heal.messages import (
    ContentOutput,
    ErrorJsonOutput,
    ErrorTextOutput,
    FilePart,
    ImagePart,
    JsonOutput,
    ModelMessage,
    ReasoningPart,
    TextOutput,
    TextPart,
    ToolCallPart,
    ToolResultPart,
)
from heal.rules._index import FACTS, Fact
from heal.rules._options import foreign_options, results_not_first
from heal.targets import signature_scope

if TYPE_CHECKING:
    from heal.providers import ProviderProfile
    from heal.targets import Target

__all__ = [
    "CLEAN",
    "DROPS",
    "NOT_PLAIN",
    "REFUSED_IDS",
    "QuickTerms",
    "quick_terms",
    "quick_verdict",
    "quickly_clean",
]


@dataclass(frozen=True, slots=True)
class QuickTerms:
    """What a plainly clean history may hold, and what it must be, for one plan's verdict.

    The walk refuses always what would put a part in the index's lists of texts to look at,
    empty messages, outputs and approvals, and what would make the rarer facts hold (an
    input that is not a dict, a provider-executed call, a result outside a tool message, a
    history of system messages alone). The fields say what else it must refuse."""

    reasoning: bool
    """Reasoning parts with ASCII text may stand: the verdict does not name the ``reasoning``
    list, and of the facts of reasoning (``non_ascii_reasoning`` aside, which ASCII text rules
    out) only those the walk answers itself, as :attr:`placed`, :attr:`signed`,
    :attr:`google_signatures` and :attr:`filled_reasoning` say."""
    tool_options: bool
    """Calls and results may carry provider options (no fact of the verdict reads them)."""
    part_options: bool
    """Text and reasoning parts may carry provider options (``assistant_options`` and
    ``head_not_user`` are not in the verdict)."""
    content_outputs: bool
    """Tool results may hold content outputs (the verdict does not name their list)."""
    text_after_call: bool
    """A text part may follow a call in its message (no ``texts_after_calls`` list)."""
    calls: bool
    """Tool calls (and so results) may stand at all: the verdict names neither list."""
    reasoned_calls: bool
    """An assistant message with calls must hold reasoning too (``calls_without_reasoning``)."""
    role_runs: bool
    """Two messages of one role may follow each other (no ``same_role_runs``)."""
    late_system: bool
    """A system message may follow another role (no ``late_system``)."""
    user_after_tool: bool
    """A user message may follow tool results (no ``user_after_tool``; ``results_not_first``
    is asked of such a message)."""
    any_head: bool
    """The first message after the system messages may be other than the user's (no
    ``head_not_user``)."""
    assistant_end: bool
    """The history may end with an assistant message (no ``final_assistant``)."""
    calls_before_user: bool
    """Calls must come before the last user message (``calls_after_last_user``)."""
    valid_ids: bool
    """Ids must be in the shared format: the characters and length every provider takes
    (``invalid_tool_call_ids``)."""
    exact_ids: bool
    """Ids must be in the profile's exact format too (``unaccepted_tool_call_ids``)."""
    offered: bool
    """Tool names must be among the target's tools, when it names them (``unoffered_tools``)."""
    placed: bool = False
    """Reasoning must open its message and be followed there by a text or a call: the verdict
    names ``reasoning_not_first``, ``reasoning_only_message``, ``trailing_reasoning`` or
    ``tool_loop_reasoning`` (the shape of Anthropic's thinking, as a Claude model writes
    it)."""
    writers: bool = False
    """Reasoning must not stand in a message that records another model as its writer than
    the target's (``other_model_thinking``)."""
    loop_reasoning: bool = False
    """A history that holds reasoning must not end with tool results: the verdict names
    ``tool_loop_reasoning`` (Anthropic's open tool loop, which wants thinking where the walk
    does not look)."""
    signed: tuple[str, ...] = ()
    """The platforms whose signature each reasoning part must carry (``anthropic`` for
    ``anthropic_unsigned_reasoning``; see :data:`heal.rules.reasoning.SIGNINGS`)."""
    tool_namespace: str | None = None
    """When calls and results may not carry provider options (not :attr:`tool_options`), the
    one namespace that makes their options a problem, if only that one does: ``anthropic``
    for ``anthropic_tool_options`` (OpenAI's item ids and Gemini's signatures on calls are
    nothing to it)."""
    assistant_options: bool = True
    """When texts and reasoning may not carry provider options (not :attr:`part_options`), an
    assistant message's may still: the verdict does not name ``assistant_options`` (only
    ``head_not_user`` reads a text's options then, and only a user message's; and
    ``google_unissued_signatures``, which :attr:`google_signatures` answers)."""
    rejected_reasoning: bool = False
    """Every reasoning part is removed (``any_reasoning``: the API takes none): the walk lists
    each, where its message keeps a text or a call, and it is not plain otherwise."""
    reasoning_items: bool = False
    """Each reasoning part must be an OpenAI reasoning item, with an OpenAI item id or
    encrypted content (``non_item_reasoning``)."""
    item_ids: bool = False
    """A reasoning item with encrypted content must carry its item id
    (``encrypted_without_item_id``)."""
    followed_items: bool = False
    """A reasoning item must be followed in its message by a text or a call, with nothing but
    parts of its own item or reasoning that is no item between (``reasoning_without_following_
    item``; the next assistant message, which the rule reads too, is not)."""
    unique_items: bool = False
    """No OpenAI item id of an assistant message's parts may come twice, but a reasoning item's
    parts within its message (``duplicate_item_ids``)."""
    google_signatures: bool = False
    """The options of an assistant message's texts, reasoning and calls must be as
    ``google-foreign-thought-signature`` keeps them: no reasoning of another provider alone,
    no signature Gemini did not issue (``google_unissued_signatures``)."""
    filled_reasoning: bool = False
    """Reasoning text must not be empty (``empty_reasoning``)."""
    turn_signed: bool = False
    """The first call of each assistant message after the last user message must carry a
    Google thought signature (``unsigned_turn_calls``)."""
    images: bool = False
    """Image parts of heal's own class may stand in a user message: the verdict does not name
    the ``images`` list..."""
    plain_images: bool = False
    """... if each is plain (:func:`heal.rules.files.plain_image`), where the verdict names
    ``unplain_images`` (the rules that read a user's images need it instead of the list)."""
    files: bool = False
    """File parts of heal's own class may stand in a user message: the verdict does not name
    the ``files`` list..."""
    plain_files: bool = False
    """... if each is an image as plain (:func:`heal.rules.files.plain_image_file`), where the
    verdict names ``unplain_files``."""


_KNOWN = frozenset(
    {
        "unusual_inputs",
        "final_assistant",
        "unpaired",
        "only_system",
        "same_role_runs",
        "late_system",
        "user_after_tool",
        "results_not_first",
        "head_not_user",
        "calls_after_last_user",
        "unsigned_turn_calls",
        "duplicate_call_ids",
        "provider_executed",
        "tool_options",
        "anthropic_tool_options",
        "unoffered_tools",
        "invalid_tool_names",
        "invalid_tool_call_ids",
        "unaccepted_tool_call_ids",
        "assistant_options",
        "google_unissued_signatures",
        "empty_reasoning",
        "unplain_images",
        "unplain_files",
        "any_reasoning",
        "other_model_thinking",
        "non_item_reasoning",
        "encrypted_without_item_id",
        "reasoning_without_following_item",
        "duplicate_item_ids",
        "trailing_reasoning",
        "reasoning_not_first",
        "reasoning_only_message",
        "calls_without_reasoning",
        "non_ascii_reasoning",
        "tool_loop_reasoning",
        "anthropic_unsigned_reasoning",
        "bedrock_unsigned_reasoning",
    }
)
"""The facts the walk answers for (by name in :data:`~heal.rules._index.FACTS`). A fact added
there and not here leaves every plan that needs it to the index (see :func:`quick_terms`) until
the walk learns it; ``tests/test_quick.py`` fails until then."""

_PLACED_FACTS = frozenset(
    {"trailing_reasoning", "reasoning_not_first", "reasoning_only_message", "tool_loop_reasoning"}
)
"""The facts of where reasoning stands, which :attr:`QuickTerms.placed` answers."""

_SIGNED_FACTS = {
    "anthropic_unsigned_reasoning": "anthropic",
    "bedrock_unsigned_reasoning": "bedrock",
}
"""The facts of unsigned reasoning, which :attr:`QuickTerms.signed` answers, with the platform
each names."""
_NAMES: dict[Fact, str] = {fact: name for name, fact in FACTS.items()}


def quick_terms(verdict: tuple[frozenset[str], tuple[Fact, ...]] | None) -> QuickTerms | None:
    """The terms of the walk for a plan's verdict (``_Plan.verdict``: the trigger lists and the
    facts its rules need), or None when the plan has no verdict or needs a fact the walk does
    not know."""
    if verdict is None:
        return None
    lists, facts = verdict
    named = {_NAMES.get(fact) for fact in facts}
    if None in named or not named <= _KNOWN:
        return None
    return QuickTerms(
        reasoning="reasoning" not in lists,
        tool_options=named.isdisjoint(
            {"tool_options", "anthropic_tool_options", "assistant_options"}
        ),
        tool_namespace="anthropic"
        if "anthropic_tool_options" in named
        and named.isdisjoint({"tool_options", "assistant_options"})
        else None,
        part_options=named.isdisjoint(
            {
                "assistant_options",
                "head_not_user",
                "google_unissued_signatures",
                "duplicate_item_ids",
            }
        ),
        rejected_reasoning="any_reasoning" in named,
        reasoning_items="non_item_reasoning" in named,
        item_ids="encrypted_without_item_id" in named,
        followed_items="reasoning_without_following_item" in named,
        unique_items="duplicate_item_ids" in named,
        assistant_options="assistant_options" not in named,
        google_signatures="google_unissued_signatures" in named,
        filled_reasoning="empty_reasoning" in named,
        turn_signed="unsigned_turn_calls" in named,
        images="images" not in lists,
        plain_images="unplain_images" in named,
        files="files" not in lists,
        plain_files="unplain_files" in named,
        content_outputs="content_outputs" not in lists,
        text_after_call="texts_after_calls" not in lists,
        calls=lists.isdisjoint({"calls", "results"}),
        reasoned_calls="calls_without_reasoning" in named,
        role_runs="same_role_runs" not in named,
        late_system="late_system" not in named,
        user_after_tool="user_after_tool" not in named,
        any_head="head_not_user" not in named,
        assistant_end="final_assistant" not in named,
        calls_before_user="calls_after_last_user" in named,
        valid_ids="invalid_tool_call_ids" in named,
        exact_ids="unaccepted_tool_call_ids" in named,
        offered="unoffered_tools" in named,
        placed=not named.isdisjoint(_PLACED_FACTS),
        loop_reasoning="tool_loop_reasoning" in named,
        writers="other_model_thinking" in named,
        signed=tuple(platform for fact, platform in _SIGNED_FACTS.items() if fact in named),
    )


def _signed_by(platforms: tuple[str, ...]) -> Callable[[Mapping[str, Any] | None], bool]:
    """The test that a reasoning part's provider options carry the signature of each of
    ``platforms``, made once (the rules' module imports the index's, which this one imports:
    looked up on first use)."""
    found = _SIGNED_BY.get(platforms)
    if found is None:
        from heal.rules.reasoning import SIGNINGS

        tests = [SIGNINGS[platform].signs_options for platform in platforms]
        found = (
            tests[0] if len(tests) == 1 else lambda options: all(test(options) for test in tests)
        )
        _SIGNED_BY[platforms] = found
    return found


_SIGNED_BY: dict[tuple[str, ...], Callable[[Mapping[str, Any] | None], bool]] = {}

_OptionsTest = Callable[[dict[str, Any]], bool]


def _other_writer(scope: str) -> Callable[[ModelMessage], str | None]:
    """The test of a message's writer against the signature scope ``scope``
    (:func:`heal.rules.target.other_writer`; the rules' module imports the index's, which this
    one imports: looked up on use)."""
    from heal.rules.target import other_writer

    return partial(other_writer, scope=scope)


@cache
def _openai_item() -> Callable[[Mapping[str, Any] | None], tuple[str | None, bool]]:
    """OpenAI's item id and encrypted content of a part's options (the rules' module imports
    the index's, which this one imports: looked up on first use)."""
    from heal.rules.openai import options_item

    return options_item


@cache
def _plain_image() -> Callable[[object], bool]:
    """The test of a plain image (the rules' module imports the index's, which this one
    imports: looked up on first use)."""
    from heal.rules.files import plain_image

    return plain_image


@cache
def _plain_image_file() -> Callable[[object], bool]:
    """The test of a plain image given as a file (looked up on first use likewise)."""
    from heal.rules.files import plain_image_file

    return plain_image_file


@cache
def _google_tests() -> tuple[_OptionsTest, _OptionsTest, _OptionsTest]:
    """Google's tests of a part's provider options: its signatures kept by
    ``google-foreign-thought-signature``, a reasoning part removed by it, and a call signed
    (the rules' module imports the index's, which this one imports: looked up on first use)."""
    from heal.rules.google import keeps_signatures, options_signed, removes_reasoning

    return keeps_signatures, removes_reasoning, options_signed


NOT_PLAIN, CLEAN, REFUSED_IDS, DROPS = 0, 1, 2, 3
"""What :func:`quick_verdict` answers: not plainly clean (ask the index), plainly clean, or not
plainly clean for its tool-call ids at least (the ids of the first call, or one with a colon,
or all of them together, are not in the format the terms ask for; the walk read no further
than such an id, or found nothing else), or plain but for other providers' reasoning, which
the walk listed (asked with ``drops``)."""


def quickly_clean(
    messages: Sequence[ModelMessage], terms: QuickTerms, target: Target, profile: ProviderProfile
) -> bool:
    """Whether ``messages`` is plainly clean under ``terms`` for ``target`` and its provider's
    ``profile``: True implies that the index of ``messages`` finds the verdict the terms were
    made from clean. False says nothing but "ask the index"."""
    return quick_verdict(messages, terms, target, profile) == CLEAN


def quick_verdict(
    messages: Sequence[ModelMessage],
    terms: QuickTerms,
    target: Target,
    profile: ProviderProfile,
    *,
    past_ids: bool = False,
    ids: list[str] | None = None,
    drops: list[tuple[int, int]] | None = None,
) -> int:
    """:func:`quickly_clean`'s walk, telling why a history is not plainly clean when its ids
    are the reason found (:data:`REFUSED_IDS`): the engine then asks whether renaming them is
    all there is to do; for any other reason it goes to the index at once.

    ``past_ids``: read on past a refused id, to the end. :data:`REFUSED_IDS` then says more:
    the history is plain but for its ids' format (the walk under ``terms`` without
    ``valid_ids`` and ``exact_ids`` finds it clean), and anything else that is not plain
    answers :data:`NOT_PLAIN`. The engine asks so when its plan can rename ids without the
    index (``_Plan.renamer``), which needs that answer: one walk instead of two.

    ``drops``: a list for the place (message, part) of each reasoning part the plan removes
    (every one, for :attr:`QuickTerms.rejected_reasoning`), or from another provider
    (:func:`~heal.rules._options.foreign_namespaces`) that, where the plan asks for
    signed reasoning (:attr:`QuickTerms.signed`, with :attr:`~QuickTerms.placed`) or reads
    Gemini's signatures (:attr:`QuickTerms.google_signatures`; in a message whose last part
    is a text or a call), would otherwise make the history not plain: the engine asks so when
    its plan removes such parts without the index (``_Plan.dropper``). :data:`DROPS` then
    says the history is plain but for them (and :data:`REFUSED_IDS`, when ``drops`` is not
    empty, but for them and its ids); a history holding them beside signed reasoning is not
    plain."""
    # As in HistoryIndex._scan: local names, class identity tests, and fields read from a
    # model's __dict__ where more than one is read.
    text_cls, call_cls, result_cls, reasoning_cls = (
        TextPart,
        ToolCallPart,
        ToolResultPart,
        ReasoningPart,
    )
    image_cls, file_cls = ImagePart, FilePart
    text_output, error_output = TextOutput, ErrorTextOutput
    json_output, error_json, content_output = JsonOutput, ErrorJsonOutput, ContentOutput
    reasoning_ok = terms.reasoning
    placed = terms.placed
    signed = _signed_by(terms.signed) if terms.signed else None
    tool_options_ok = terms.tool_options
    tool_namespace = terms.tool_namespace
    part_options_ok = terms.part_options
    content_ok = terms.content_outputs
    text_after_call_ok = terms.text_after_call
    calls_ok = terms.calls
    runs_ok = terms.role_runs
    reasoned_calls = terms.reasoned_calls
    assistant_options_ok = terms.assistant_options
    filled_reasoning = terms.filled_reasoning
    rejected_reasoning = terms.rejected_reasoning
    # Which model wrote a message, where its kept reasoning must be the target model's.
    writers = None
    if terms.writers and target.model is not None:
        writers = _other_writer(signature_scope(target.model))
    # Google's tests of a part's options, and OpenAI's item id and encrypted content of a
    # part's options, where the terms read them (else None).
    google_keeps = google_removes = google_signs = items = None
    if terms.google_signatures or terms.turn_signed:
        keeps, removes, signs = _google_tests()
        if terms.google_signatures:
            google_keeps, google_removes = keeps, removes
        if terms.turn_signed:
            google_signs = signs
    # A user's images and image files, where the plan's rules leave them (each test looked
    # up when one comes: most histories hold none).
    images_ok, plain_images = terms.images, terms.plain_images
    files_ok, plain_files = terms.files, terms.plain_files
    reasoning_items = terms.reasoning_items
    item_ids = terms.item_ids
    followed_items = terms.followed_items
    unique_items = terms.unique_items
    if reasoning_items or item_ids or followed_items or unique_items:
        items = _openai_item()
    # Whether a call's options are read at all, and by Google's or OpenAI's terms.
    call_modes = google_keeps is not None or google_signs is not None or unique_items
    call_options_read = not tool_options_ok or call_modes
    item_seen: dict[str, int] = {}  # each item id, and the message it first came in
    # What each id must be: in the exact format, in the shared one, or anything (no rule of
    # the plan reads what ids are, only which parts share one).
    accepts = (
        profile.accepts_tool_call_id
        if terms.exact_ids
        else profile.valid_tool_call_id
        if terms.valid_ids
        else None
    )
    refused = False  # an id was refused, and the walk read on (past_ids)
    if ids is None:
        ids = []
    add_id = ids.append
    names: set[str] = set()
    add_name = names.add
    # Pairing as the index's scan decides it: each call waits for its result in a tool message
    # whose last non-tool message is the call's.
    waiting: dict[str, int] = {}
    previous = ""  # the role of the message before
    turns = False  # a message other than a system message came
    last_non_tool = last_user = call_at = reasoning_at = i = -1
    unsigned_at = -1  # the last assistant message whose first call has no Google signature
    for message in messages:
        i += 1
        fields = message.__dict__
        role = fields["role"]
        is_tool = role == "tool"
        if not is_tool:
            if waiting:
                # A call's result block ended without its result (an early answer: the result's
                # pairing test, or the last tests, would refuse the history too).
                return NOT_PLAIN
            if role == "user":
                if previous == "tool" and (not terms.user_after_tool or results_not_first(message)):
                    return NOT_PLAIN
                last_user = i
            if role == "system":
                if turns and not terms.late_system:
                    return NOT_PLAIN
            elif not turns:
                turns = True
                if role != "user" and not terms.any_head:
                    return NOT_PLAIN
            last_non_tool = i
        if role == previous and not runs_ok:
            return NOT_PLAIN
        previous = role
        content = fields["content"]
        if type(content) is str:
            if not content.isascii() or content.isspace() or not content:
                return NOT_PLAIN
            continue
        if not content:
            return NOT_PLAIN
        for part in content:
            cls = type(part)
            if cls is text_cls:
                text = part.text
                if not text.isascii() or text.isspace() or not text:
                    return NOT_PLAIN
                if call_at == i and not text_after_call_ok:
                    return NOT_PLAIN
                if not part_options_ok and (options := part.provider_options) is not None:
                    if (
                        not assistant_options_ok
                        or role != "assistant"
                        or (google_keeps is not None and not google_keeps(options))
                    ):
                        return NOT_PLAIN
                    if unique_items and items is not None:
                        iid = items(options)[0]
                        if iid is not None:
                            if iid in item_seen:
                                return NOT_PLAIN
                            item_seen[iid] = i
            elif cls is call_cls:
                fields = part.__dict__
                if not calls_ok or type(fields["input"]) is not dict or fields["provider_executed"]:
                    return NOT_PLAIN
                if call_options_read:
                    options = fields["provider_options"]
                    if (
                        not tool_options_ok
                        and options is not None
                        and (tool_namespace is None or tool_namespace in options)
                    ):
                        return NOT_PLAIN
                    if call_modes:
                        if unique_items and items is not None and options is not None:
                            iid = items(options)[0]
                            if iid is not None:
                                if iid in item_seen:
                                    return NOT_PLAIN
                                item_seen[iid] = i
                        if (
                            google_keeps is not None
                            and options is not None
                            and not google_keeps(options)
                        ):
                            return NOT_PLAIN
                        if (
                            google_signs is not None
                            and call_at != i  # the first call of its message
                            and (options is None or not google_signs(options))
                        ):
                            unsigned_at = i
                tid = fields["tool_call_id"]
                if accepts is not None and (not ids or ":" in tid) and not accepts(tid):
                    # A history from a provider whose ids this one refuses has them from its
                    # first call on, and one that changed provider holds Kimi's (colons, which
                    # no provider takes): refused here, not after reading the rest, unless
                    # asked to read on, judging no id more.
                    if not past_ids:
                        return REFUSED_IDS
                    refused = True
                    accepts = None
                add_id(tid)
                add_name(fields["tool_name"])
                waiting[tid] = call_at = i
            elif cls is result_cls:
                fields = part.__dict__
                if not is_tool:
                    return NOT_PLAIN
                if not tool_options_ok:
                    options = fields["provider_options"]
                    if options is not None and (
                        tool_namespace is None or tool_namespace in options
                    ):
                        return NOT_PLAIN
                add_name(fields["tool_name"])
                output = fields["output"]
                kind = type(output)
                if kind is text_output or kind is error_output:
                    value = output.value
                    if not value.isascii() or value.isspace() or not value:
                        return NOT_PLAIN
                elif kind is content_output:
                    if not content_ok:
                        return NOT_PLAIN
                elif kind is not json_output and kind is not error_json:
                    return NOT_PLAIN  # an execution denial, or a subclass
                if waiting.pop(fields["tool_call_id"], -2) != last_non_tool:
                    return NOT_PLAIN  # no call waits for it right before
            elif cls is reasoning_cls:
                text = part.text
                if not reasoning_ok or not text.isascii() or (filled_reasoning and not text):
                    return NOT_PLAIN
                if rejected_reasoning:
                    # Every reasoning part is removed: listed, in a message that keeps a text
                    # or a call (its last part, here).
                    if drops is None or type(content[-1]) is reasoning_cls:
                        return NOT_PLAIN
                    drops.append((i, _place(content, part)))
                    continue
                if not part_options_ok and (options := part.provider_options) is not None:
                    if not assistant_options_ok or role != "assistant":
                        return NOT_PLAIN
                    if google_removes is not None and google_keeps is not None:
                        if google_removes(options):
                            # Another provider's: listed, in a message that keeps a text or
                            # a call (its last part, here).
                            if drops is None or type(content[-1]) is reasoning_cls:
                                return NOT_PLAIN
                            drops.append((i, _place(content, part)))
                            continue
                        if not google_keeps(options):
                            return NOT_PLAIN
                if items is not None:
                    rid, encrypted = items(part.provider_options)
                    if rid is not None or encrypted:  # an OpenAI reasoning item
                        if rid is None and item_ids:
                            return NOT_PLAIN  # encrypted without its item id
                        if unique_items and rid is not None and item_seen.setdefault(rid, i) != i:
                            return NOT_PLAIN  # a copy of an earlier message's item
                        if followed_items and not _followed(
                            content, _place(content, part) + 1, rid, items
                        ):
                            return NOT_PLAIN  # reasoning_without_following_item
                    elif reasoning_items:
                        # Another provider's reasoning, or none's: listed, in a message that
                        # keeps a text or a call (its last part, here).
                        if drops is None or type(content[-1]) is reasoning_cls:
                            return NOT_PLAIN
                        drops.append((i, _place(content, part)))
                        continue
                if placed and (
                    type(content[0]) is not reasoning_cls or type(content[-1]) is reasoning_cls
                ):
                    return NOT_PLAIN  # after a text or a call, or last in its message
                if signed is not None and not signed(options := part.provider_options):
                    if drops is None or not foreign_options(options, terms.signed):
                        return NOT_PLAIN
                    drops.append((i, _place(content, part)))  # another provider's reasoning
                    continue
                reasoning_at = i
            elif cls is image_cls and images_ok and role == "user":
                if plain_images and not _plain_image()(part):
                    return NOT_PLAIN  # for the rules that read it (unplain_images)
            elif cls is file_cls and files_ok and role == "user":
                if plain_files and not _plain_image_file()(part):
                    return NOT_PLAIN  # for the rules that read it (unplain_files)
            else:
                return NOT_PLAIN  # approvals, subclasses, files where read: the index lists them
        if reasoned_calls and call_at == i and reasoning_at != i and role == "assistant":
            return NOT_PLAIN
        if reasoning_at == i and writers is not None and writers(message) is not None:
            return NOT_PLAIN  # its thinking is another model's (other_model_thinking)
    if waiting or not turns:
        return NOT_PLAIN  # a call without its result; only_system (an empty history too)
    if terms.loop_reasoning and previous == "tool" and reasoning_at >= 0:
        return NOT_PLAIN  # tool_loop_reasoning: an open tool loop, in a history that reasons
    if previous == "assistant" and not terms.assistant_end:
        return NOT_PLAIN
    if drops:
        if signed is not None and reasoning_at >= 0:
            return NOT_PLAIN  # signed thinking beside: its latest message is protected
        clean = DROPS
    else:
        clean = CLEAN
    if unsigned_at > last_user:
        return NOT_PLAIN  # unsigned_turn_calls (unsigned_at stays -1 unless the terms ask)
    if not ids:
        return clean
    if terms.calls_before_user and call_at > last_user:
        return NOT_PLAIN
    offered = target.tools
    if (
        len(set(ids)) != len(ids)
        or not profile.all_valid_tool_names(names)
        or (terms.offered and offered is not None and not offered.issuperset(names))
    ):
        return NOT_PLAIN
    if refused:
        return REFUSED_IDS
    if accepts is None or (
        profile.all_accepted_tool_call_ids(ids)
        if terms.exact_ids
        else profile.all_valid_tool_call_ids(ids)
    ):
        return clean
    return REFUSED_IDS


def _followed(
    content: Sequence[object],
    start: int,
    rid: str | None,
    items: Callable[[Mapping[str, Any] | None], tuple[str | None, bool]],
) -> bool:
    """Whether the reasoning item of id ``rid`` (None: encrypted content alone) whose next part
    in ``content`` is at ``start`` is followed there by a text or a call (the walk's texts are
    not blank: an item the Responses API takes after reasoning), past reasoning that is no
    OpenAI item and the other parts of its own item, as ``reasoning-without-following-item``
    reads the message."""
    for k in range(start, len(content)):
        part = content[k]
        kind = type(part)
        if kind is TextPart or kind is ToolCallPart:
            return True
        if kind is not ReasoningPart:
            return False  # nothing the walk takes
        found, encrypted = items(cast(ReasoningPart, part).provider_options)
        if found is None and not encrypted:
            continue  # no item: the adapter skips it
        if rid is None or found != rid:
            return False  # another item comes next
    return False


def _place(content: Sequence[object], part: object) -> int:
    """The index of ``part`` in ``content``, by identity (equal parts may repeat)."""
    for p, each in enumerate(content):
        if each is part:
            return p
    raise ValueError("the part is not in the content")  # pragma: no cover - the walk's own

"""Delta mode of the Responses adapter: the new items of a ``previous_response_id`` request,
healed against the previous response (``heal_openai_responses(new, previous=response)``).

The previous response is the real OpenAI SDK ``Response``; every delta is validated against the
SDK's request types, and the server's view of the conversation (the previous output followed by
the delta) must be a history heal finds valid.
"""

from __future__ import annotations

import copy
import json
from typing import Any, cast

import pydantic
import pytest
from agents.items import ModelResponse
from agents.run_config import ModelInputData
from agents.usage import Usage
from openai.types.responses import Response, ResponseInputItemParam, ResponseInputParam

from heal import Action, ConfigError, InputError, Policy, validate_messages
from heal.adapters.openai_responses import heal_openai_responses, load_messages
from heal.rules.tool_pairing import PLACEHOLDER_TEXT

SDK = pydantic.TypeAdapter(ResponseInputParam)

_REASONING = {"type": "reasoning", "id": "rs_1", "summary": []}
_WEATHER = {
    "type": "function_call",
    "id": "fc_1",
    "call_id": "call_1",
    "name": "get_weather",
    "arguments": '{"city":"Paris"}',
    "status": "completed",
}
_TIME = {
    "type": "function_call",
    "id": "fc_2",
    "call_id": "call_2",
    "name": "get_time",
    "arguments": "{}",
    "status": "completed",
}
_DIFF = {
    "type": "custom_tool_call",
    "id": "ctc_1",
    "call_id": "call_3",
    "name": "apply_diff",
    "input": "--- a\n+++ b",
}


def response(*output: dict[str, Any]) -> Response:
    """A previous response as the SDK returns it."""
    return Response.model_validate(
        {
            "id": "resp_1",
            "object": "response",
            "created_at": 1760000000,
            "model": "gpt-5",
            "output": list(output),
            "parallel_tool_calls": True,
            "tool_choice": "auto",
            "tools": [],
        }
    )


def output(call_id: str, text: str = "sunny") -> dict[str, Any]:
    return {"type": "function_call_output", "call_id": call_id, "output": text}


def sdk_validate(items: list[dict[str, Any]]) -> None:
    """Validate against the SDK's request type, forcing its lazily validated iterables."""
    json.loads(json.dumps(items))
    validated = SDK.validate_python(items)
    assert len(list(validated)) == len(items)


def server_view_is_valid(previous: Response, delta: list[dict[str, Any]]) -> None:
    """What the server sees, its stored output followed by the delta, is a valid history."""
    held = [item.model_dump(mode="json", exclude_unset=True) for item in previous.output]
    report = validate_messages(load_messages([*held, *delta]), provider="openai-responses")
    assert report.valid, report.report()


def heal(new: list[dict[str, Any]], previous: Any, **options: Any) -> Any:
    before = copy.deepcopy(new)
    result = heal_openai_responses(new, previous=previous, **options)
    assert new == before, "healing mutated its input"
    sdk_validate(result.messages)
    again = heal_openai_responses(result.messages, previous=previous, **options)
    assert not again.changed, [r.describe() for r in again.repairs]
    return result


def test_pending_call_gets_a_placeholder_output_first() -> None:
    # openai/openai-agents-python#1061: "No tool output found for function call call_...".
    previous = response(_REASONING, _WEATHER, _TIME)
    new = [output("call_1"), {"role": "user", "content": "and tomorrow?"}]
    result = heal(new, previous)
    assert result.messages == [
        output("call_1"),
        {"type": "function_call_output", "call_id": "call_2", "output": PLACEHOLDER_TEXT},
        {"role": "user", "content": "and tomorrow?"},
    ]
    (repair,) = result.repairs
    assert (repair.rule, repair.action, repair.message_index, repair.anchor_index) == (
        "orphan-tool-call",
        Action.INSERT,
        None,
        None,
    )
    assert repair.tool_call_id == "call_2"
    assert repair.describe().startswith("start of input: orphan-tool-call:")
    server_view_is_valid(previous, result.messages)


def test_the_new_items_alone_would_lose_the_answer() -> None:
    # Why delta mode exists: healed as a whole history, the new items look like an orphan output,
    # and removing it is exactly what makes the server answer "No tool output found".
    new = [output("call_1")]
    assert heal_openai_responses(new).messages == []
    assert heal(new, response(_WEATHER)).messages is new


def test_an_output_for_no_call_is_removed() -> None:
    previous = response(_WEATHER)
    new = [output("call_1"), output("call_9", "stray")]
    result = heal(new, previous)
    assert result.messages == [output("call_1")]
    assert [(r.rule, r.message_index) for r in result.repairs] == [("orphan-tool-result", 1)]
    assert result.repairs[0].removed["output"] == {"type": "text", "value": "stray"}
    server_view_is_valid(previous, result.messages)


def test_repeated_items_are_removed_and_reasoning_never_resent() -> None:
    # openai/openai-agents-python#1789: "Duplicate item found with id fc_...".
    previous = response(_REASONING, _WEATHER)
    reference = {"type": "item_reference", "id": "rs_1"}
    resent = {k: v for k, v in _WEATHER.items() if k != "status"}
    new = [reference, resent, output("call_1"), output("call_9")]
    result = heal(new, previous)
    assert result.messages == [output("call_1")]
    assert [(r.rule, r.action, r.message_index) for r in result.repairs] == [
        ("duplicate-item-id", Action.REMOVE, 0),
        ("duplicate-item-id", Action.REMOVE, 1),
        ("orphan-tool-result", Action.REMOVE, 3),  # its place in YOUR items
    ]
    assert result.repairs[1].removed == resent
    assert result.repairs[1].scope.value == "request"
    assert "fc_1 of the previous response" in result.repairs[1].describe()
    server_view_is_valid(previous, result.messages)


def test_a_call_resent_without_its_item_id_is_a_repeat() -> None:
    previous = response(_WEATHER)
    resent = {k: v for k, v in _WEATHER.items() if k not in ("id", "status")}
    result = heal([resent, output("call_1")], previous)
    assert result.messages == [output("call_1")]
    assert [r.rule for r in result.repairs] == ["duplicate-item-id"]
    assert "call call_1" in result.repairs[0].reason


def test_an_output_after_a_user_message_moves_to_the_start() -> None:
    previous = response(_WEATHER)
    new = [{"role": "user", "content": "hurry"}, output("call_1")]
    result = heal(new, previous)
    assert result.messages == [output("call_1"), {"role": "user", "content": "hurry"}]
    assert [(r.rule, r.message_index, r.anchor_index) for r in result.repairs] == [
        ("misplaced-tool-result", 1, None)
    ]


def test_pending_paired_call_gets_an_output_of_its_kind() -> None:
    previous = response(_WEATHER, _DIFF)
    result = heal([output("call_1")], previous)
    assert result.messages == [
        output("call_1"),
        {"type": "custom_tool_call_output", "call_id": "call_3", "output": PLACEHOLDER_TEXT},
    ]
    server_view_is_valid(previous, result.messages)


def test_policy_keep_reports_and_drop_call_still_answers() -> None:
    previous = response(_WEATHER)
    new = [{"role": "user", "content": "never mind"}]
    kept = heal_openai_responses(new, previous=previous, policy={"orphan-tool-call": "keep"})
    assert kept.messages is new
    assert [(r.rule, r.action) for r in kept.repairs] == [("orphan-tool-call", Action.KEEP)]
    # A call the server holds cannot be removed from it: only an output answers it.
    dropped = heal(new, previous, policy=Policy({"orphan-tool-call": "drop-call"}))
    assert dropped.messages[0]["call_id"] == "call_1"
    assert [(r.rule, r.action) for r in dropped.repairs] == [("orphan-tool-call", Action.INSERT)]


def test_an_aborted_call_the_server_holds_is_answered_not_dropped() -> None:
    # Outside delta mode an incomplete call is removed; the server holds this one.
    cut = {**_WEATHER, "status": "incomplete", "arguments": '{"ci'}
    result = heal([{"role": "user", "content": "go on"}], response(cut))
    assert result.messages[0] == output("call_1", PLACEHOLDER_TEXT)


def test_a_valid_delta_comes_back_identical() -> None:
    new = [output("call_1"), output("call_2"), {"role": "user", "content": "thanks"}]
    result = heal(new, response(_REASONING, _WEATHER, _TIME))
    assert result.repairs == ()
    assert result.messages is new


def test_previous_response_forms() -> None:
    previous = response(_REASONING, _WEATHER)
    new = [{"role": "user", "content": "hi"}]
    as_json = previous.model_dump(mode="json")
    for form in (previous, as_json, previous.output, as_json["output"]):
        result = heal_openai_responses(new, previous=form)
        assert [r.tool_call_id for r in result.repairs] == ["call_1"]
    with pytest.raises(InputError, match="previous"):
        heal_openai_responses(new, previous={"id": "resp_1"})
    with pytest.raises(InputError, match="previous"):
        heal_openai_responses(new, previous="resp_1")


def test_delta_mode_is_for_the_responses_api() -> None:
    with pytest.raises(ConfigError, match="previous_response_id"):
        heal_openai_responses([], previous=response(_WEATHER), provider="anthropic")


def test_openai_agents_previous_response_id_run() -> None:
    # The Agents SDK's own input for the next call of a previous_response_id run, when its
    # server-item tracking misses the previous response (#673, #1789): the previous output
    # replayed in the SDK's input-item form, then the tool output.
    previous = response(_REASONING, _WEATHER)
    replayed = ModelResponse(
        output=previous.output, usage=Usage(), response_id=previous.id
    ).to_input_items()
    tool_output = cast(ResponseInputItemParam, output("call_1"))  # a function_call_output item
    data = ModelInputData(input=[*replayed, tool_output], instructions="Be brief.")
    result = heal_openai_responses(data.input, previous=previous)
    assert result.messages == [output("call_1")]
    assert [(r.rule, r.message_index) for r in result.repairs] == [
        ("duplicate-item-id", 0),
        ("duplicate-item-id", 1),
    ]
    server_view_is_valid(previous, result.messages)

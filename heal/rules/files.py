"""Rules on file parts some provider APIs cannot take."""

from __future__ import annotations

import base64
import binascii
from collections.abc import Iterator

from heal.messages import TextPart
from heal.repairs import Action, Scope
from heal.rules._base import Context, DropPart, Example, Finding, Rejection, Rule, SetPart

__all__ = ["RULES", "MistralAssistantFile", "TextFileAttachment"]

_TEXT_FILE_PROVIDERS = frozenset({"openai-chat", "openai-responses", "mistral"})


class TextFileAttachment(Rule):
    """A plain-text file attached to a user message, for an API that takes no text files."""

    id = "text-file-attachment"
    triggers = frozenset({"files"})
    summary = "user message attaches a text/* file, which this API does not accept as a file"
    providers = _TEXT_FILE_PROVIDERS
    scope = Scope.REQUEST
    choice_docs = {
        "fix": "Send the file's text as a text part headed by its name instead (inline base64 "
        "data only; a file given by URL is reported, as heal fetches nothing). Request only: "
        "the stored history keeps the file.",
    }
    rejections = (
        Rejection(
            "openai-chat, openai-responses (AI SDK @ai-sdk/openai 3.0.141)",
            "AI_UnsupportedFunctionalityError: 'file part media type text/plain' functionality "
            "not supported.",
            "observed with the interop judge (tests/interop/test_provider_interop.py)",
        ),
        Rejection(
            "mistral (AI SDK @ai-sdk/mistral 3.0.69)",
            "Only images and PDF file parts are supported",
            "observed with the interop judge (tests/interop/test_provider_interop.py)",
        ),
    )
    example = Example(
        before=[
            {
                "role": "user",
                "content": [
                    {
                        "type": "file",
                        "data": "aGVsbG8=",
                        "mediaType": "text/plain",
                        "filename": "a.txt",
                    }
                ],
            },
        ],
        after=[
            {"role": "user", "content": [{"type": "text", "text": "[file a.txt]\nhello"}]},
        ],
        provider="openai-chat",
    )

    def check(self, ctx: Context, choice: str) -> Iterator[Finding]:
        roles = ctx.index.roles
        for m, p, part in ctx.index.files:
            if roles[m] != "user" or not part.media_type.startswith("text/"):
                continue
            text = _decode(part.data)
            if text is None:
                yield Finding(
                    Action.REPORT,
                    m,
                    p,
                    f"{part.media_type} file given by URL or undecodable data; this API "
                    "takes no text files: inline its text as a text part",
                )
                continue
            name = part.filename or "attachment"
            yield Finding(
                Action.REPLACE,
                m,
                p,
                f"{part.media_type} file {name!r} sent as text (this API takes no text files)",
                edits=(SetPart(m, p, TextPart(text=f"[file {name}]\n{text}")),),
                removed=part,
            )


def _decode(data: str | bytes) -> str | None:
    if isinstance(data, bytes):
        raw = data
    elif data.startswith(("http://", "https://", "data:")):
        return None
    else:
        try:
            raw = base64.b64decode(data, validate=True)
        except (binascii.Error, ValueError):
            return None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return None


class MistralAssistantFile(Rule):
    """A file part in an assistant message, for Mistral."""

    id = "mistral-assistant-file"
    triggers = frozenset({"files"})
    summary = "assistant message holds a file part, which Mistral's API does not accept"
    providers = frozenset({"mistral"})
    scope = Scope.REQUEST
    choice_docs = {
        "fix": "Leave the file out of this request (the removed part is kept in the repair "
        "record; the stored history keeps it).",
    }
    rejections = (
        Rejection(
            "mistral (AI SDK @ai-sdk/mistral 3.0.69)",
            "Unsupported content type in assistant message: file",
            "observed with the interop judge (tests/interop/test_provider_interop.py)",
        ),
    )
    example = Example(
        before=[
            {"role": "user", "content": "draw"},
            {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": "here"},
                    {"type": "file", "data": "iVBORw0KGgo=", "mediaType": "image/png"},
                ],
            },
        ],
        after=[
            {"role": "user", "content": "draw"},
            {"role": "assistant", "content": [{"type": "text", "text": "here"}]},
        ],
        provider="mistral",
    )

    def check(self, ctx: Context, choice: str) -> Iterator[Finding]:
        roles = ctx.index.roles
        for m, p, part in ctx.index.files:
            if roles[m] == "assistant":
                yield Finding(
                    Action.REMOVE,
                    m,
                    p,
                    "file part in an assistant message; Mistral takes none: left out",
                    edits=(DropPart(m, p),),
                    removed=part,
                )


RULES: tuple[Rule, ...] = (TextFileAttachment(), MistralAssistantFile())
"""This module's rules, in the order they run."""

"""Rules on file parts some provider APIs cannot take (or cannot fetch, or cannot read).

In the order the registry runs them: a file given by an OpenAI file id first (it is a reference,
with no media type or bytes to judge), then what the target takes no file of, then text that
must be decoded, before text files become text parts. :class:`AssistantFile` (files in
assistant messages, declared once per provider) runs with each provider's pack instead, and for
Mistral after the rules above.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias
from urllib.parse import unquote_to_bytes

from heal._construct import replaced
from heal.messages import (
    ContentOutput,
    FilePart,
    ImagePart,
    TextPart,
    ToolResultPart,
    UserMessage,
)
from heal.providers import HEAL_NAMESPACE, providers_where
from heal.repairs import Action, Scope
from heal.rules import _errors as err
from heal.rules import _examples as ex
from heal.rules._base import (
    AddMessage,
    Context,
    DropPart,
    Edit,
    Example,
    FamilyRule,
    Finding,
    Rejection,
    Rule,
    SetPart,
)
from heal.rules._options import SYNTHESIZED
from heal.rules.openai import CHAT_COMPLETIONS_PROVIDERS, RESPONSES
from heal.rules.reasoning import ANTHROPIC_SIGNING, Signing, signed_guard

__all__ = [
    "ANTHROPIC_ASSISTANT_FILE",
    "ASSISTANT_FILE_PROVIDERS",
    "GOOGLE_ASSISTANT_FILE_URL",
    "MISTRAL_ASSISTANT_FILE",
    "OPENAI_ASSISTANT_FILE",
    "OPENAI_TOOL_RESULT_MEDIA",
    "AnthropicUnsupportedMediaType",
    "AssistantFile",
    "OpenAIFileId",
    "TextFileAttachment",
    "ToolMedia",
    "ToolResultMedia",
    "UndecodableTextFile",
    "is_openai_file_id",
    "plain_image",
    "plain_image_file",
]

_TEXT_FILE_PROVIDERS = providers_where(lambda p: p.text_files == "rejected")


OPENAI_FILE_ID_PREFIX = "file-"
"""How OpenAI file ids start: the AI SDK openai provider sends data with this prefix as a
``file_id`` (its default ``fileIdPrefixes``). Never base64 data: '-' is not in its alphabet."""

_FILE_ID_ITEMS = ("file-id", "image-file-id")
"""Tool output content items that name a stored file by id (the AI SDK's ``ToolResultOutput``).
A tuple, not a set: an item's ``type`` is any JSON value, and a list or object cannot be looked
up in a set (it is unhashable); compared with each entry, it is simply not one of them."""

ANTHROPIC_IMAGE_TYPES = frozenset({"image/jpeg", "image/png", "image/gif", "image/webp"})
"""The image media types Anthropic takes."""

PLAIN_IMAGE_TYPES = frozenset({None, *ANTHROPIC_IMAGE_TYPES})
"""The media types of a plain image (:func:`plain_image`): those every provider takes as
they are, or none given (``anthropic-unsupported-media-type`` takes an image without one, as
the AI SDK and heal's adapter send it)."""


def plain_image_file(part: object) -> bool:
    """:func:`plain_image` for a file part: an image given as a file (as the AI SDK spells an
    image since its version 5, and as Gemini's ``inline_data`` loads), of heal's own class, in
    a user message, of a media type every provider takes (JPEG, PNG, GIF or WebP: a file must
    name one), with its data, no file stored at OpenAI, and options no rule reads (nor
    Anthropic's mark that it was a document block, which its media-type rule reads).

    The rules that read files (the assistant-file family, ``openai-file-id``,
    ``anthropic-unsupported-media-type``, ``undecodable-text-file``, ``text-file-attachment``,
    ``bedrock-document-without-text``, ``google-empty-part``) find nothing in such a part, and
    need the index fact ``unplain_files`` instead of the ``files`` list; a rule that removes
    every image (``model-without-image-input``) still needs the list."""
    if type(part) is not FilePart:
        return False
    fields = part.__dict__
    options = fields["provider_options"]
    return (
        fields["media_type"] in ANTHROPIC_IMAGE_TYPES
        and (
            options is None
            or (_unread_options(options) and _marks(part, "anthropic").get("kind") != "document")
        )
        and bool(fields["data"])
        and not is_openai_file_id(part)
    )


def plain_image(part: object) -> bool:
    """Whether an image part in a user message is one no built-in rule finds anything in: of
    heal's own class (a subclass may carry more than its fields), without provider options
    but those no rule reads (:func:`_unread_options`: OpenAI's ``imageDetail``, heal's
    adapters' marks), of a media type every provider takes (:data:`PLAIN_IMAGE_TYPES`), with
    its data, and no file stored at OpenAI (:func:`is_openai_file_id`). A screenshot or a
    photo a user sends, that is.

    The rules that read images in user messages (``openai-file-id``,
    ``anthropic-unsupported-media-type``, ``google-empty-part``) need the index fact
    ``unplain_images`` instead of the ``images`` list: it holds when an image is not plain or
    stands elsewhere. So a history whose images are all plain can be clean, and the quick
    verdict's walk, which asks this of each image, takes it without building the index."""
    if type(part) is not ImagePart:
        return False
    fields = part.__dict__
    data = fields["image"]
    options = fields["provider_options"]
    return (
        (options is None or _unread_options(options))
        and fields["media_type"] in PLAIN_IMAGE_TYPES
        and bool(data)
        and not is_openai_file_id(part)
    )


ANTHROPIC_DOCUMENT_TYPES = frozenset({"application/pdf", "text/plain"})
"""The document media types Anthropic takes (a PDF as base64 data, plain text as a string)."""

_JPEG_ALIAS = "image/jpg"
"""A common, non-standard name for image/jpeg that Anthropic rejects."""

_DATA_URL = re.compile(r"data:([^,]*?)(;base64)?,(.*)", re.DOTALL)


def _unread_options(options: Mapping[str, Any]) -> bool:
    """Whether an image's provider options are ones no rule reads but as :func:`plain_image`
    judges them: OpenAI's ``imageDetail`` alone (the ``detail`` of an OpenAI image), and heal's
    adapters' marks (where pydantic-ai keeps an item's fields; of those, a rule reads the OpenAI
    adapters' stored-file marks, :func:`is_openai_file_id`, and Anthropic's block kept whole,
    which ``anthropic-unsupported-media-type`` passes over)."""
    for namespace, value in options.items():
        if type(value) is not dict:
            return False
        if namespace == "openai":
            if len(value) != 1 or type(value.get("imageDetail")) is not str:
                return False
        elif namespace != HEAL_NAMESPACE:
            return False
    return True


MediaRef: TypeAlias = tuple[int, int, FilePart | ImagePart]


def _media_parts(ctx: Context) -> list[MediaRef]:
    """Every file part, and every image part in a user message, in history order."""
    index = ctx.index
    found: list[MediaRef] = [*index.files]
    if not index.images:
        return found
    roles = index.roles
    found.extend(ref for ref in index.images if roles[ref[0]] == "user")
    found.sort(key=lambda ref: (ref[0], ref[1]))
    return found


def _marks(part: FilePart | ImagePart, adapter: str) -> dict[str, Any]:
    """The markers an adapter left on the part under ``providerOptions.heal``."""
    heal = (part.provider_options or {}).get(HEAL_NAMESPACE)
    marks = heal.get(adapter) if isinstance(heal, dict) else None
    return marks if isinstance(marks, dict) else {}


def is_openai_file_id(part: FilePart | ImagePart) -> bool:
    """Whether the part's data names a file stored at OpenAI instead of holding it: a string
    starting with ``file-``, or one the OpenAI adapters read from a ``file_id`` field (Azure
    OpenAI's ids start otherwise)."""
    data = part.data if isinstance(part, FilePart) else part.image
    if not isinstance(data, str):
        return False
    return (
        data.startswith(OPENAI_FILE_ID_PREFIX)
        or _marks(part, "openai_chat").get("fileId") is True
        or _marks(part, "openai_responses").get("source") == "file_id"
    )


def _openai_file_item(item: Mapping[str, Any], provider: str | None) -> bool:
    """Whether a tool output content item names a file stored at OpenAI: a ``file-id`` or
    ``image-file-id`` item whose id is a string (the OpenAI form), or a per-provider record
    with an ``openai`` entry and none for the target."""
    if item.get("type") not in _FILE_ID_ITEMS:
        return False
    file_id = item.get("fileId")
    if isinstance(file_id, str):
        return True
    return isinstance(file_id, dict) and "openai" in file_id and provider not in file_id


def _dumped(output: ContentOutput) -> Any:
    return output.model_dump(mode="json", exclude_unset=True)


class OpenAIFileId(Rule):
    """A file given by an OpenAI file id, in a request to a provider that cannot fetch it.

    OpenAI (and Azure OpenAI) lets a message name an uploaded file by id instead of carrying
    it: ``{"type": "file", "file": {"file_id": "file-abc"}}`` in Chat Completions,
    ``input_file`` / ``input_image`` with ``file_id`` in Responses, ``file-id`` /
    ``image-file-id`` items in a tool output. heal's OpenAI adapters load the id as the part's
    data, as the AI SDK does (its openai provider sends data starting with ``file-`` as a
    ``file_id``). Only OpenAI can fetch that file. Every other provider takes the id for the
    file's bytes: the AI SDK anthropic, google, bedrock and mistral adapters send ``file-abc``
    as base64 image or document data (observed with the interop judge), and write a
    ``file-id`` tool output item as JSON text or refuse it (bedrock).

    OpenAI-compatible servers (``openai-compatible``, DeepSeek, Groq, xAI, Cerebras) and
    Mistral speak the format but cannot read OpenAI's file storage, so the rule applies to them
    too. ``openai-chat`` and ``openai-responses`` keep the id: they also stand for Azure
    OpenAI, whose own ids heal cannot tell from OpenAI's, and a wrong id fails there with a
    clear "not found" instead of being read as data. For a proxy that forwards file ids to
    OpenAI, set the rule to ``keep``.
    """

    id = "openai-file-id"
    triggers = frozenset({"files", "images", "content_outputs"})
    needs = frozenset({"unplain_files", "content_outputs", "unplain_images"})  # plain_image
    summary = "file given by an OpenAI file id ('file-...'), which only OpenAI can fetch"
    providers = providers_where(lambda p: not p.openai_file_ids)
    scope = Scope.REQUEST
    choices = ("drop",)
    choice_docs = {
        "drop": "Leave the file (or the tool output item) out of this request; the stored "
        "history keeps it for OpenAI. The model does not see the file, which it could not "
        "have read anyway; the removed part or output is kept in the repair record. A message "
        "left empty is then removed (empty-message); a tool output left empty gets the "
        "target's placeholder where it needs one (anthropic-empty-tool-result, ...). In the "
        "latest message with signed thinking, which no rule edits, it is reported instead.",
    }
    rejections = (
        Rejection(
            "google",
            "Invalid value at 'contents[2].parts[0].inline_data.data' (TYPE_BYTES), Base64 "
            'decoding failed for "/api/attachments/file?id=66301475-0027-4d57-98eb-27ef54d0c0d5"',
            "bobrware/bobrchat#135 (another non-base64 string sent as inline data, as a file "
            "id is by the AI SDK google adapter; not in provider-rules.md)",
            pattern=err.GOOGLE_INLINE_DATA_NOT_BASE64,
        ),
        Rejection(
            "bedrock (AI SDK @ai-sdk/amazon-bedrock 4.0.186)",
            "AI_UnsupportedFunctionalityError: 'unsupported tool content part type: "
            "image-file-id' functionality not supported.",
            "observed with the interop judge (tests/interop/judge.py); for anthropic, google "
            "and mistral the AI SDK sends the id as base64 data, and no error text for that is "
            "known",
            pattern=err.AI_SDK_FILE_ID_TOOL_CONTENT,
        ),
    )
    example = Example(
        before=[
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "Summarize the report."},
                    {
                        "type": "file",
                        "data": "file-6F2ksmvXxt4VdoqmHRw6kL",
                        "mediaType": "application/pdf",
                    },
                ],
            },
        ],
        after=[
            {"role": "user", "content": [{"type": "text", "text": "Summarize the report."}]},
        ],
        provider="google",
    )

    def check(self, ctx: Context, choice: str) -> Iterator[Finding]:
        target = ctx.provider
        for m, p, part in _media_parts(ctx):
            if not is_openai_file_id(part):
                continue
            ref = part.data if isinstance(part, FilePart) else part.image
            what = f"{part.type} part names OpenAI file {ref!r}, which {target} cannot fetch"
            if m in ctx.protected:
                yield Finding(Action.REPORT, m, p, what + _PROTECTED)
                continue
            yield Finding(
                Action.REMOVE,
                m,
                p,
                f"{what}; left out of the request",
                edits=(DropPart(m, p),),
                removed=part,
            )
        for m, p, result in ctx.index.content_outputs:
            output = result.output
            if not isinstance(output, ContentOutput):
                continue
            kept = tuple(item for item in output.value if not _openai_file_item(item, target))
            if len(kept) == len(output.value):
                continue
            what = (
                f"tool output names {len(output.value) - len(kept)} file(s) stored at OpenAI, "
                f"which {target} cannot fetch"
            )
            if m in ctx.protected:
                yield Finding(
                    Action.REPORT, m, p, what + _PROTECTED, tool_call_id=result.tool_call_id
                )
                continue
            fixed = replaced(output, {"value": kept})
            yield Finding(
                Action.REPLACE,
                m,
                p,
                f"{what}; those items were left out of the request",
                edits=(SetPart(m, p, replaced(result, {"output": fixed})),),
                tool_call_id=result.tool_call_id,
                removed={"output": _dumped(output)},
                added={"output": _dumped(fixed)},
            )


_PROTECTED = (
    ", but it sits in the latest message with signed thinking, which heal does not edit (its "
    "signed blocks must go back unchanged); take the file out of that message yourself"
)


Verdict: TypeAlias = Literal["ok", "relabel", "drop"]


def _anthropic_verdict(media: str | None, *, image: bool, wildcard: bool) -> Verdict:
    """``ok``, ``relabel`` (image/jpg) or ``drop`` for a media type sent to Anthropic as an image
    block (``image``) or a document; ``wildcard``: whether ``image/*`` (or none) is sent as
    JPEG, as for parts (the AI SDK and heal's adapter both do) but not tool output items."""
    if not image:
        return "ok" if media in ANTHROPIC_DOCUMENT_TYPES else "drop"
    if media in ANTHROPIC_IMAGE_TYPES or (wildcard and media in (None, "image/*")):
        return "ok"
    return "relabel" if media == _JPEG_ALIAS else "drop"


def _item_verdict(item: Mapping[str, Any]) -> Verdict:
    kind, media = item.get("type"), item.get("mediaType")
    if kind not in ("image-data", "file-data", "media") or not isinstance(media, str):
        return "ok"
    if kind == "image-data" or (kind == "media" and media.startswith("image/")):
        return _anthropic_verdict(media, image=True, wildcard=False)
    # The AI SDK anthropic adapter takes only PDF file data in a tool result (it drops the
    # rest with a warning); heal's adapter writes it as a base64 document.
    return "ok" if media == "application/pdf" else "drop"


class AnthropicUnsupportedMediaType(Rule):
    """A file or image Anthropic cannot take: a media type other than JPEG, PNG, GIF and WebP
    images, PDF and plain text.

    Anthropic's Messages API takes ``image`` blocks of ``image/jpeg``, ``image/png``,
    ``image/gif`` and ``image/webp``, and ``document`` blocks of ``application/pdf`` (base64 or
    URL) and ``text/plain`` (a string); in a tool result, a document must be a PDF. Anything
    else (audio, video, ``application/octet-stream``, office documents, ``text/csv``,
    ``image/tiff``) is rejected: the AI SDK anthropic adapter throws before sending (and drops
    such files in tool results with a warning), the Anthropic SDK types reject the block, and
    the API answers 400. A file labelled ``image/jpg``, a common misnomer, is a JPEG: it is
    relabelled, not removed. provider-rules.md has no entry on media types: the error texts
    below come from the interop judge and the issues named.

    Files in assistant messages are ``anthropic-assistant-file``'s; opaque Anthropic blocks
    (search results, container uploads) are left alone.
    """

    id = "anthropic-unsupported-media-type"
    triggers = frozenset({"files", "images", "content_outputs"})
    needs = frozenset({"unplain_files", "content_outputs", "unplain_images"})  # plain_image
    summary = "file or image of a media type Anthropic does not take (audio, video, ...)"
    providers = frozenset({"anthropic"})
    scope = Scope.REQUEST
    choices = ("drop",)
    choice_docs = {
        "drop": "Leave the file (or the tool output item) out of this request; the stored "
        "history keeps it for providers that take it. The model does not see the file; the "
        "removed part or output is kept in the repair record, and a message left empty is then "
        "removed. An image labelled image/jpg is relabelled image/jpeg instead (loses nothing).",
    }
    rejections = (
        Rejection(
            "anthropic (AI SDK @ai-sdk/anthropic 3.0.138)",
            "AI_UnsupportedFunctionalityError: 'media type: audio/wav' functionality not "
            "supported.",
            "observed with the interop judge (tests/interop/judge.py); the same for video/mp4, "
            "application/octet-stream and text/csv",
            pattern=err.AI_SDK_ANTHROPIC_MEDIA_TYPE,
        ),
        Rejection(
            "anthropic",
            "messages.0.content.1.document.source.base64.media_type: Input should be "
            "'application/pdf'",
            "danny-avila/LibreChat#14485 (a .docx); langchain-ai/langchainjs PR#11156",
            pattern=err.ANTHROPIC_MEDIA_TYPE,
        ),
        Rejection(
            "anthropic",
            "messages.36.content.2.image.source.base64.media_type: Input should be "
            "'image/jpeg', 'image/png', 'image/gif' or 'image/webp'",
            "anthropics/claude-code#8184; NousResearch/hermes-agent#55432 (image/jpg)",
            pattern=err.ANTHROPIC_MEDIA_TYPE,
        ),
    )
    example = Example(
        before=[
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "What is said here?"},
                    {"type": "file", "data": "UklGRg==", "mediaType": "audio/wav"},
                ],
            },
        ],
        after=[
            {"role": "user", "content": [{"type": "text", "text": "What is said here?"}]},
        ],
        provider="anthropic",
    )

    def check(self, ctx: Context, choice: str) -> Iterator[Finding]:
        roles = ctx.index.roles
        for m, p, part in _media_parts(ctx):
            if roles[m] != "user" or isinstance(_marks(part, "anthropic").get("block"), dict):
                continue
            media = part.media_type
            if isinstance(part, ImagePart):
                verdict = _anthropic_verdict(media, image=True, wildcard=True)
            else:
                image = part.media_type.startswith("image/")
                image = image and _marks(part, "anthropic").get("kind") != "document"
                verdict = _anthropic_verdict(media, image=image, wildcard=True)
            if verdict == "relabel":
                yield Finding(
                    Action.REPLACE,
                    m,
                    p,
                    f"{part.type} part labelled {_JPEG_ALIAS}, which Anthropic rejects; "
                    "relabelled image/jpeg",
                    edits=(SetPart(m, p, replaced(part, {"media_type": "image/jpeg"})),),
                    removed={"mediaType": media},
                    added={"mediaType": "image/jpeg"},
                )
            elif verdict == "drop":
                yield Finding(
                    Action.REMOVE,
                    m,
                    p,
                    f"{part.type} part of media type {media}, which Anthropic does not take; "
                    "left out of the request",
                    edits=(DropPart(m, p),),
                    removed=part,
                )
        for m, p, result in ctx.index.content_outputs:
            output = result.output
            if roles[m] != "tool" or not isinstance(output, ContentOutput):
                continue
            verdicts = [_item_verdict(item) for item in output.value]
            if all(v == "ok" for v in verdicts):
                continue
            kept = tuple(
                {**item, "mediaType": "image/jpeg"} if v == "relabel" else item
                for item, v in zip(output.value, verdicts, strict=True)
                if v != "drop"
            )
            fixed = replaced(output, {"value": kept})
            dropped = sorted(
                {
                    str(item.get("mediaType"))
                    for item, v in zip(output.value, verdicts, strict=True)
                    if v == "drop"
                }
            )
            what = []
            if dropped:
                what.append(
                    f"{', '.join(dropped)} content, which Anthropic does not take in a tool "
                    "result, left out of the request"
                )
            if "relabel" in verdicts:
                what.append(f"{_JPEG_ALIAS} images relabelled image/jpeg")
            yield Finding(
                Action.REPLACE,
                m,
                p,
                f"tool output: {'; '.join(what)}",
                edits=(SetPart(m, p, replaced(result, {"output": fixed})),),
                tool_call_id=result.tool_call_id,
                removed={"output": _dumped(output)},
                added={"output": _dumped(fixed)},
            )


def _inline_bytes(data: str | bytes) -> bytes | None:
    """The bytes of inline file data (bytes, base64, or a data URL); None for a URL, or for a
    string that is none of these."""
    if isinstance(data, bytes):
        return data
    found = _DATA_URL.fullmatch(data)
    try:
        if found is None:
            if data.startswith(("http://", "https://")):
                return None
            return base64.b64decode(data, validate=True)
        if found.group(2):
            return base64.b64decode(found.group(3), validate=True)
        return unquote_to_bytes(found.group(3))
    except (binascii.Error, ValueError):
        return None


def _like(data: str | bytes, raw: bytes) -> str | bytes:
    """``raw`` in the form ``data`` had: bytes, base64, or a base64 data URL."""
    if isinstance(data, bytes):
        return raw
    encoded = base64.b64encode(raw).decode("ascii")
    found = _DATA_URL.fullmatch(data)
    return encoded if found is None else f"data:{found.group(1)};base64,{encoded}"


class UndecodableTextFile(Rule):
    """A text file whose bytes are not UTF-8, for an API that needs its text.

    Anthropic takes a ``text/plain`` document as a JSON string, and OpenAI and Mistral take no
    text files, so ``text-file-attachment`` sends the text as a text part: either way the bytes
    must be decoded. Bytes that are not UTF-8 (a Latin-1 or UTF-16 file, binary data labelled
    ``text/plain``) cannot be, and heal's adapters never guess: the Anthropic dump refuses such
    a document, and ``text-file-attachment`` could only report it. The AI SDK decodes with
    U+FFFD in place of each invalid sequence, silently; this rule does the same, with a record.
    No provider error text is known (the AI SDK never sends the raw bytes, and JSON cannot
    carry them), and provider-rules.md has none.
    """

    id = "undecodable-text-file"
    triggers = frozenset({"files"})
    needs = frozenset({"unplain_files"})  # a user's plain images read as nothing: plain_image_file
    summary = "text file attached to a user message whose bytes are not UTF-8"
    providers = providers_where(lambda p: p.text_files != "accepted")
    scope = Scope.REQUEST
    choices = ("replace", "drop")
    choice_docs = {
        "replace": "Decode the bytes as UTF-8 with U+FFFD in place of each invalid sequence (what "
        "the AI SDK sends), for this request; characters of another encoding are lost. The "
        "original part is kept in the repair record.",
        "drop": "Leave the file out of this request. The part is kept in the repair record.",
    }
    rejections = (
        Rejection(
            "anthropic (heal.adapters.anthropic)",
            "a text/plain document's data is not base64 UTF-8 text",
            "heal's Anthropic adapter (dump_messages), which translates and never heals: the "
            "Messages API takes a text document as a string",
            pattern=err.HEAL_TEXT_DOCUMENT_NOT_UTF8,
        ),
        Rejection(
            "openai-chat, openai-responses, mistral (heal)",
            "text/plain file given by URL or undecodable data; this API takes no text files: "
            "inline its text as a text part",
            "heal's text-file-attachment report, which this rule runs before",
            pattern=err.HEAL_TEXT_FILE_NOT_INLINED,
        ),
    )
    example = Example(
        before=[
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "Fix the typo."},
                    {"type": "file", "data": "Y2Fm6Q==", "mediaType": "text/plain"},
                ],
            },
        ],
        after=[
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "Fix the typo."},
                    {"type": "file", "data": "Y2Fm77+9", "mediaType": "text/plain"},
                ],
            },
        ],
        provider="anthropic",
    )

    def check(self, ctx: Context, choice: str) -> Iterator[Finding]:
        roles = ctx.index.roles
        anthropic = ctx.provider == "anthropic"
        for m, p, part in ctx.index.files:
            media = part.media_type
            if roles[m] != "user" or not (
                media == "text/plain" if anthropic else media.startswith("text/")
            ):
                continue
            raw = _inline_bytes(part.data)
            if raw is None:
                continue
            try:
                raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                why = f"{media} file's bytes are not UTF-8 ({exc.reason} at byte {exc.start})"
            else:
                continue
            if choice == "drop":
                yield Finding(
                    Action.REMOVE,
                    m,
                    p,
                    f"{why}; left out of the request",
                    edits=(DropPart(m, p),),
                    removed=part,
                )
                continue
            text = raw.decode("utf-8", "replace")
            fixed = replaced(part, {"data": _like(part.data, text.encode("utf-8"))})
            yield Finding(
                Action.REPLACE,
                m,
                p,
                f"{why}; decoded with U+FFFD in place of the invalid bytes",
                edits=(SetPart(m, p, fixed),),
                removed=part,
                added=fixed,
            )


class TextFileAttachment(Rule):
    """A plain-text file attached to a user message, for an API that takes no text files."""

    id = "text-file-attachment"
    triggers = frozenset({"files"})
    needs = frozenset({"unplain_files"})  # a user's plain images read as nothing: plain_image_file
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
            pattern=err.AI_SDK_OPENAI_TEXT_FILE,
        ),
        Rejection(
            "mistral (AI SDK @ai-sdk/mistral 3.0.69)",
            "Only images and PDF file parts are supported",
            "observed with the interop judge (tests/interop/test_provider_interop.py)",
            pattern=err.AI_SDK_MISTRAL_FILE_TYPE,
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


# --- files in assistant messages -------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class AssistantFiles:
    """A provider's facts for :class:`AssistantFile`."""

    signing: Signing | None = None
    """Whose latest signed thinking no edit may touch (None: the provider signs nothing)."""
    urls_only: bool = False
    """Whether only a file given by URL is unsendable (the provider takes inline data)."""
    problem: str = "{media_type} file in an assistant message cannot be sent to this provider"
    """The problem, in findings."""
    remedy: str = "; removed from the request"
    """What was done, after the problem, in findings."""


# A URL the AI SDK passes on as a URL (http, https, gs...); data: URLs become inline data.
_URL = re.compile(r"[a-zA-Z][a-zA-Z0-9+.-]*://")


class AssistantFile(FamilyRule[AssistantFiles]):
    """A file part in an assistant message that the target cannot take: removed from the
    request (reported in the latest message with signed reasoning, which no rule edits)."""

    triggers = frozenset({"files"})
    needs = frozenset({"unplain_files"})  # a user's plain images read as nothing: plain_image_file
    scope = Scope.REQUEST
    choices = ("drop",)
    choice_docs = {
        "drop": "Remove the file part from this request (the stored history keeps it); a "
        "message left empty is then removed. The part is kept in the repair record. In the "
        "latest message with signed reasoning, which no rule edits, it is reported instead.",
    }

    def protects(self, ctx: Context) -> tuple[int, ...]:
        return signed_guard(ctx, self.facts.signing)

    @property
    def may_protect(self) -> bool:
        return self.facts.signing is not None  # a provider that signs nothing: no guard

    def _unsendable(self, part: FilePart) -> bool:
        if not self.facts.urls_only:
            return True
        data = part.data
        return isinstance(data, str) and _URL.match(data) is not None

    def check(self, ctx: Context, choice: str) -> Iterator[Finding]:
        roles = ctx.index.roles
        facts = self.facts
        for m, p, part in ctx.index.files:
            if roles[m] != "assistant" or not self._unsendable(part):
                continue
            what = facts.problem.format(media_type=part.media_type)
            if m in ctx.protected:
                # The message must go back as it was (its signed blocks): say so, change nothing.
                yield Finding(
                    Action.REPORT,
                    m,
                    p,
                    f"{what}, but it sits in a message heal must not edit (the latest with "
                    "signed reasoning); end the turn with a user message, or remove the file",
                )
                continue
            yield Finding(
                Action.REMOVE,
                m,
                p,
                what + facts.remedy,
                edits=(DropPart(m, p),),
                removed=part,
            )


def _drawn(data: str) -> list[dict[str, Any]]:
    """A user asks for a drawing and gets a file with the text "Here it is."."""
    return [
        ex.user("draw a cat"),
        {
            "role": "assistant",
            "content": [
                ex.text("Here it is."),
                {"type": "file", "data": data, "mediaType": "image/png"},
            ],
        },
        ex.user("thanks"),
    ]


_NOT_DRAWN = [
    ex.user("draw a cat"),
    {"role": "assistant", "content": [ex.text("Here it is.")]},
    ex.user("thanks"),
]

ANTHROPIC_ASSISTANT_FILE = AssistantFile(
    id="anthropic-assistant-file",
    doc="""A file (image, document) in an assistant message sent to Anthropic.

    Anthropic takes images and documents in user turns only; the AI SDK anthropic adapter drops
    assistant files silently, which can leave an empty message.
    """,
    summary="file part in an assistant message (Anthropic takes files in user turns only)",
    providers=frozenset({"anthropic"}),
    rejections=(
        Rejection(
            "anthropic (Claude on Bedrock)",
            "messages.1.content: 'image' blocks are not permitted within assistant turns.",
            "epam/ai-dial-adapter-bedrock PR#306",
            pattern=err.ANTHROPIC_ASSISTANT_IMAGE,
        ),
    ),
    example=Example(before=_drawn("iVBORw0KGgo="), after=_NOT_DRAWN, provider="anthropic"),
    facts=AssistantFiles(signing=ANTHROPIC_SIGNING),
)

GOOGLE_ASSISTANT_FILE_URL = AssistantFile(
    id="google-assistant-file-url",
    doc="""A file in an assistant message given by URL, sent to Gemini.

    The AI SDK google adapter sends assistant files only as inline data and throws on a URL.
    """,
    summary="file part given by URL in an assistant message",
    providers=frozenset({"google"}),
    rejections=(
        Rejection(
            "google (AI SDK, before any request)",
            "AI_UnsupportedFunctionalityError: 'File data URLs in assistant messages are not "
            "supported' functionality not supported.",
            "@ai-sdk/google 3.0.141 convertToGoogleGenerativeAIMessages (observed locally)",
            pattern=err.AI_SDK_GOOGLE_ASSISTANT_FILE_URL,
        ),
    ),
    example=Example(
        before=_drawn("https://example.com/cat.png"), after=_NOT_DRAWN, provider="google"
    ),
    facts=AssistantFiles(urls_only=True),
)

ASSISTANT_FILE_PROVIDERS = RESPONSES | (CHAT_COMPLETIONS_PROVIDERS - {"mistral"})
"""Where ``openai-assistant-file`` runs: Responses and the Chat Completions servers but Mistral,
which has its own rule (``mistral-assistant-file``) with its adapter's error."""

OPENAI_ASSISTANT_FILE = AssistantFile(
    id="openai-assistant-file",
    doc="""A file part (image, document, audio) in an assistant message, for the Responses API or a
    Chat Completions style API (OpenAI Chat, DeepSeek, Cerebras, Groq, xAI, OpenAI-compatible
    servers).

    Why: both wire formats take files in user messages only. A Chat Completions assistant
    message holds text and refusal parts (``ChatCompletionAssistantMessageParam``), and OpenAI
    rejects an image in one (``Invalid 'messages[2]'. Image URLs are only allowed for messages
    with role 'user', but this message with role 'assistant' contains an image URL.``); the
    compatible servers speak the same message schema. A Responses assistant message holds
    ``output_text`` and ``refusal`` only; provider-rules.md has no API error text for a file
    there: the rejection is the wire format's, which has no way to write it (heal's adapters
    refuse it). The AI SDK OpenAI adapters (@ai-sdk/openai 3.0.141, chat and Responses) skip
    assistant file parts without a warning, which can leave an empty message. (Mistral has
    ``mistral-assistant-file``.)

    Fix: remove the part from this request (the stored history keeps it); an assistant message
    left empty is then removed by ``empty-message``. The model no longer sees the file it
    produced; its text is kept. provider-rules.md (X1) suggests moving the file into a user
    message after it instead; heal does not, as that would present the model's own output as
    something the user sent.
    """,
    summary="file part in an assistant message (OpenAI's wire formats take files from users only)",
    providers=ASSISTANT_FILE_PROVIDERS,
    rejections=(
        Rejection(
            "openai-chat",
            "Invalid 'messages[2]'. Image URLs are only allowed for messages with role 'user', "
            "but this message with role 'assistant' contains an image URL.",
            "openai/openai-node#1030; onyx-dot-app/onyx PR#1964; OpenHands/OpenHands#7700",
            pattern=err.OPENAI_ASSISTANT_IMAGE,
        ),
    ),
    example=Example(before=_drawn("iVBORw0KGgo="), after=_NOT_DRAWN, provider="openai-chat"),
    facts=AssistantFiles(),
)

MISTRAL_ASSISTANT_FILE = AssistantFile(
    id="mistral-assistant-file",
    doc="""A file part in an assistant message, for Mistral.""",
    summary="assistant message holds a file part, which Mistral's API does not accept",
    providers=frozenset({"mistral"}),
    choices=("fix",),
    choice_docs={
        "fix": "Leave the file out of this request (the removed part is kept in the repair "
        "record; the stored history keeps it).",
    },
    rejections=(
        Rejection(
            "mistral (AI SDK @ai-sdk/mistral 3.0.69)",
            "Unsupported content type in assistant message: file",
            "observed with the interop judge (tests/interop/test_provider_interop.py)",
            pattern=err.AI_SDK_MISTRAL_ASSISTANT_FILE,
        ),
    ),
    example=Example(
        before=[
            ex.user("draw"),
            {
                "role": "assistant",
                "content": [
                    ex.text("here"),
                    {"type": "file", "data": "iVBORw0KGgo=", "mediaType": "image/png"},
                ],
            },
        ],
        after=[ex.user("draw"), {"role": "assistant", "content": [ex.text("here")]}],
        provider="mistral",
    ),
    facts=AssistantFiles(
        problem="file part in an assistant message; Mistral takes none", remedy=": left out"
    ),
)


# --- media in tool results -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ToolMedia:
    """A wire format's facts for :class:`ToolResultMedia`."""

    user_media: tuple[str, ...] = (
        "image/",
        "application/pdf",
        "audio/wav",
        "audio/mpeg",
        "audio/mp3",
    )
    """What a user message of the format takes, as media types or prefixes ending in ``/``:
    only such media is moved. Anything else stays in the tool output, written as its JSON
    text as before, since a user message would refuse it (the AI SDK openai adapter throws on
    ``file part media type application/zip``)."""


_MEDIA_ITEMS = ("image-data", "image-url", "file-data", "file-url", "media")
"""Tool output content items that hold media inline or by URL (the AI SDK's ``ToolResultOutput``;
``media`` is AI SDK 5's name for ``file-data``). Items naming a stored file by id are
``openai-file-id``'s business, and Chat Completions has no way to send an image by file id."""


def _moved_part(item: Mapping[str, Any], facts: ToolMedia) -> ImagePart | FilePart | None:
    """The user part a tool output content item becomes, or None when it stays where it is
    (not media, of a media type a user message does not take, or malformed)."""
    kind = item.get("type")
    if kind not in _MEDIA_ITEMS:
        return None
    media = item.get("mediaType")
    media = media if isinstance(media, str) else None
    source = item.get("url") if kind in ("image-url", "file-url") else item.get("data")
    if not isinstance(source, str) or not source:
        return None
    image = kind in ("image-data", "image-url") or (media or "").startswith("image/")
    if not image and not any(
        media == taken or (taken.endswith("/") and (media or "").startswith(taken))
        for taken in facts.user_media
    ):
        return None
    options = item.get("providerOptions")
    extra: dict[str, Any] = {"provider_options": options} if isinstance(options, dict) else {}
    if image:
        if media is not None:  # absent, not null: the AI SDK schema takes no null here
            extra["media_type"] = media
        return ImagePart(image=source, **extra)
    filename = item.get("filename")
    if isinstance(filename, str):
        extra["filename"] = filename
    assert media is not None
    return FilePart(data=source, media_type=media, **extra)


_POINTER = "({what} moved to the next user message)"
_SOURCE = "The {what} below is from the result of tool call {call_id} ({tool}):"


class ToolResultMedia(FamilyRule[ToolMedia]):
    """Media (images, files) in a tool result, for an API whose tool messages take text only:
    moved into a user message right after the tool messages."""

    triggers = frozenset({"content_outputs"})
    scope = Scope.REQUEST
    choices = ("move",)
    choice_docs = {
        "move": "Move the media into a user message inserted right after the run of tool "
        "messages, headed by a text part naming the tool call it came from (marked "
        "synthesized), and leave a short text pointer in its place in the tool result. Request "
        "only: the stored history keeps the media in the result. Loses nothing; media a user "
        "message cannot take either stays where it is.",
    }

    def check(self, ctx: Context, choice: str) -> Iterator[Finding]:
        roles = ctx.index.roles
        blocks: dict[int, list[TextPart | ImagePart | FilePart]] = {}
        first: dict[int, bool] = {}
        found: list[tuple[int, int, ToolResultPart, ContentOutput, ContentOutput, int, int]] = []
        for m, p, result in ctx.index.content_outputs:
            output = result.output
            if roles[m] != "tool" or not isinstance(output, ContentOutput):
                continue
            moved = [_moved_part(item, self.facts) for item in output.value]
            if not any(moved):
                continue
            end = _tool_run_end(roles, m)
            kept: list[dict[str, Any]] = []
            parts = blocks.setdefault(end, [])
            for item, part in zip(output.value, moved, strict=True):
                if part is None:
                    kept.append(item)
                    continue
                what = "image" if isinstance(part, ImagePart) else "file"
                kept.append({"type": "text", "text": _POINTER.format(what=what)})
                source = _SOURCE.format(
                    what=what, call_id=result.tool_call_id, tool=result.tool_name
                )
                parts += (TextPart(text=source, provider_options=SYNTHESIZED), part)
            fixed = replaced(output, {"value": tuple(kept)})
            count = sum(part is not None for part in moved)
            found.append((m, p, result, output, fixed, end, count))
        for m, p, result, output, fixed, end, count in found:
            edits: tuple[Edit, ...] = (SetPart(m, p, replaced(result, {"output": fixed})),)
            if not first.get(end):
                first[end] = True
                edits += (AddMessage(end, UserMessage(content=tuple(blocks[end]))),)
            yield Finding(
                Action.MOVE,
                m,
                p,
                f"result of tool call {result.tool_call_id!r} holds {count} image(s) or file(s), "
                "which a tool message cannot carry; moved to a user message after the tool "
                "messages",
                edits=edits,
                tool_call_id=result.tool_call_id,
                removed={"output": _dumped(output)},
                added={"output": _dumped(fixed)},
                anchor=end,
            )


def _tool_run_end(roles: Sequence[str], m: int) -> int:
    """The last message of the run of tool messages that message ``m`` is in."""
    while m + 1 < len(roles) and roles[m + 1] == "tool":
        m += 1
    return m


_SCREENSHOT = ex.tool_result(
    "call_1",
    "screenshot",
    {
        "type": "content",
        "value": [
            {"type": "text", "text": "Took a screenshot."},
            {"type": "image-data", "data": "iVBORw0KGgo=", "mediaType": "image/png"},
        ],
    },
)

OPENAI_TOOL_RESULT_MEDIA = ToolResultMedia(
    id="openai-tool-result-media",
    doc="""A tool result holding images or files (``content`` output with ``image-data``,
    ``image-url``, ``file-data``, ``file-url`` items), for a Chat Completions style API (OpenAI
    Chat, DeepSeek, Mistral, Cerebras, Groq, xAI, OpenAI-compatible servers).

    Why: a Chat Completions tool message takes text only (``ChatCompletionToolMessageParam``:
    a string or text parts), and OpenAI rejects an image in one: ``Invalid 'messages[234]'.
    Image URLs are only allowed for messages with role 'user', but this message with role
    'tool' contains an image URL.`` (OpenHands/OpenHands#7700). The compatible servers speak the
    same schema: DeepSeek V4 deployments refuse ``image_url`` outside user messages too
    (MiaAI-Lab/DeepSeek-v4-Flash-DSpark-2x-DGX-Spark PR#189; antirez/ds4#933 answers ``invalid
    JSON request``). Where nothing is rejected the image is still lost: the AI SDK's Chat
    Completions adapters (openai, openai-compatible, deepseek, mistral, ...) write a content
    output as its JSON text, so the model reads base64 instead of seeing the image, and newer
    OpenAI models that accept an image there ignore it (openai/openai-openapi#523). Every
    ``chat-completions`` provider gets the rule: none is known to read media in a tool message.

    Fix: the workaround OpenHands PR#10200 and provider-rules.md (X1) describe. Each image or
    file (of a kind a user message takes: images, PDF, WAV and MP3 audio) is replaced in the
    tool result by a short pointer, ``(image moved to the next user message)``, and goes into
    a user message inserted right after the run of tool messages, after a text part saying
    which tool call it came from. The tool result keeps its place and its text, so pairing is
    untouched. Request only: the stored history keeps the media where the tool put it.
    """,
    summary="tool result holds images or files, which a Chat Completions tool message cannot carry",
    providers=CHAT_COMPLETIONS_PROVIDERS,
    rejections=(
        Rejection(
            "openai-chat",
            "Invalid 'messages[234]'. Image URLs are only allowed for messages with role 'user', "
            "but this message with role 'tool' contains an image URL.",
            "OpenHands/OpenHands#7700 (through LiteLLM); workaround OpenHands/OpenHands "
            "PR#10200; provider-rules.md §2(h)",
            pattern=err.OPENAI_TOOL_IMAGE,
        ),
    ),
    example=Example(
        before=[
            ex.user("What is on my screen?"),
            {"role": "assistant", "content": [ex.call("call_1", "screenshot")]},
            {"role": "tool", "content": [_SCREENSHOT]},
        ],
        after=[
            ex.user("What is on my screen?"),
            {"role": "assistant", "content": [ex.call("call_1", "screenshot")]},
            {
                "role": "tool",
                "content": [
                    ex.tool_result(
                        "call_1",
                        "screenshot",
                        {
                            "type": "content",
                            "value": [
                                {"type": "text", "text": "Took a screenshot."},
                                {"type": "text", "text": "(image moved to the next user message)"},
                            ],
                        },
                    )
                ],
            },
            {
                "role": "user",
                "content": [
                    {
                        "type": "text",
                        "text": "The image below is from the result of tool call call_1 "
                        "(screenshot):",
                        "providerOptions": SYNTHESIZED,
                    },
                    {"type": "image", "image": "iVBORw0KGgo=", "mediaType": "image/png"},
                ],
            },
        ],
        provider="openai-chat",
    ),
    facts=ToolMedia(),
)

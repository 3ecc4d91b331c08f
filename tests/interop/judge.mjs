#!/usr/bin/env node
// Offline "outside judge" for AI SDK v6 ModelMessage histories.
//
// Reads ONE JSON document from stdin:
//   {"cases": [{"id": "...", "target": T, "messages": [...ModelMessage JSON...]}, ...]}
// and writes ONE JSON document to stdout:
//   {"results": [{"id", "ok", "stage", "error", "body", "warnings"}, ...]}
//
// Targets:
//   "schema"            zod validation with the AI SDK's own `modelMessageSchema`.
//   "core"              schema + generateText() with a mock model; exercises ai core's
//                       prompt conversion. body = the prompt the model received.
//   "anthropic", "openai-chat", "openai-responses", "google", "bedrock", "mistral"
//                       schema + generateText() with the REAL provider package and a fake
//                       `fetch` that captures the request and returns a canned success.
//                       body = the captured request body (the provider's wire format).
//
// Optional per-case fields: "model" (override the default model id of the target) and
// "providerOptions" (passed through to generateText).
//
// Every call declares one function tool per tool name in the history (see toolsFor), and
// nothing is ever downloaded: URLs a model cannot take are replaced by placeholder bytes
// (reported in "warnings").
//
// Every case gets a result; a bad case never stops the batch. stdout carries nothing but
// the final JSON document (console output of the SDK is redirected to stderr).

import { generateText, jsonSchema, modelMessageSchema, tool } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { createAmazonBedrock } from '@ai-sdk/amazon-bedrock';
import { createAnthropic } from '@ai-sdk/anthropic';
import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { createMistral } from '@ai-sdk/mistral';
import { createOpenAI } from '@ai-sdk/openai';
// `ai` builds its schemas with `zod/v4`; use the same entry point so the array wrapper and
// the element schema come from one zod instance.
import { z } from 'zod/v4';

// The SDK prints its warnings with console.warn by default; we report them ourselves.
globalThis.AI_SDK_LOG_WARNINGS = false;
// Keep stdout clean for the result document, whatever a library decides to print.
for (const level of ['log', 'info', 'debug', 'warn']) {
  console[level] = (...args) => console.error(...args);
}

const messagesSchema = z.array(modelMessageSchema);

// ---------------------------------------------------------------------------
// Canned, minimal, successful responses. Each one was checked against the response
// schema of the pinned provider package (see package.json), so that generateText()
// completes and the only possible failures come from the history itself. A judged case
// also gets a "judge: canned response parsed as ..." warning if the answer text is not
// "ok", i.e. if a package upgrade changed how a canned response is read.
// ---------------------------------------------------------------------------

const CANNED = {
  // Anthropic Messages API.
  anthropic: () => ({
    id: 'msg_judge',
    type: 'message',
    role: 'assistant',
    model: 'claude-sonnet-4-5',
    content: [{ type: 'text', text: 'ok' }],
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: 1, output_tokens: 1 },
  }),
  // OpenAI Chat Completions.
  'openai-chat': () => ({
    id: 'chatcmpl-judge',
    object: 'chat.completion',
    created: 0,
    model: 'gpt-4o',
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: 'ok' },
        finish_reason: 'stop',
      },
    ],
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
  }),
  // OpenAI Responses API (output message items need an `id`).
  'openai-responses': () => ({
    id: 'resp_judge',
    object: 'response',
    created_at: 0,
    status: 'completed',
    model: 'gpt-4o',
    error: null,
    incomplete_details: null,
    output: [
      {
        type: 'message',
        id: 'msg_judge',
        status: 'completed',
        role: 'assistant',
        content: [{ type: 'output_text', text: 'ok', annotations: [] }],
      },
    ],
    usage: {
      input_tokens: 1,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: 1,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 2,
    },
  }),
  // Gemini generateContent.
  google: () => ({
    candidates: [
      {
        content: { role: 'model', parts: [{ text: 'ok' }] },
        finishReason: 'STOP',
        index: 0,
      },
    ],
    usageMetadata: { promptTokenCount: 1, candidatesTokenCount: 1, totalTokenCount: 2 },
    modelVersion: 'gemini-2.5-pro',
    responseId: 'judge',
  }),
  // Bedrock Converse.
  bedrock: () => ({
    output: { message: { role: 'assistant', content: [{ text: 'ok' }] } },
    stopReason: 'end_turn',
    usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
    metrics: { latencyMs: 1 },
  }),
  // Mistral chat completions: like OpenAI's, but the package's schema REQUIRES
  // `object: 'chat.completion'` and `message.role`, which OpenAI's leaves optional.
  mistral: () => ({
    id: 'cmpl-judge',
    object: 'chat.completion',
    created: 0,
    model: 'mistral-large-latest',
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: 'ok', tool_calls: null },
        finish_reason: 'stop',
      },
    ],
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
  }),
};

// Default model ids; a case may override them with "model".
const DEFAULT_MODEL = {
  anthropic: 'claude-sonnet-4-5',
  'openai-chat': 'gpt-4o',
  'openai-responses': 'gpt-4o',
  google: 'gemini-2.5-pro',
  bedrock: 'anthropic.claude-3-5-sonnet-20240620-v1:0',
  mistral: 'mistral-large-latest',
};

/** Builds the real provider model for `target`, wired to `fetch`. */
function providerModel(target, modelId, fetch) {
  const common = { apiKey: 'test', fetch };
  switch (target) {
    case 'anthropic':
      return createAnthropic(common)(modelId);
    case 'openai-chat':
      return createOpenAI(common).chat(modelId);
    case 'openai-responses':
      return createOpenAI(common).responses(modelId);
    case 'google':
      return createGoogleGenerativeAI(common)(modelId);
    case 'bedrock':
      // Static fake credentials: requests are SigV4-signed locally (aws4fetch +
      // WebCrypto), which works offline; our fetch ignores the signature.
      return createAmazonBedrock({
        region: 'us-east-1',
        accessKeyId: 'x',
        secretAccessKey: 'y',
        fetch,
      })(modelId);
    case 'mistral':
      return createMistral(common)(modelId);
    default:
      throw new Error(`unknown provider target ${target}`);
  }
}

const PROVIDER_TARGETS = new Set(Object.keys(CANNED));
const TARGETS = new Set(['schema', 'core', ...PROVIDER_TARGETS]);

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

/** Makes any value JSON-safe: bytes -> base64, URL -> href, drops functions/undefined. */
function toJsonSafe(value) {
  if (value === null || value === undefined) return value ?? null;
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  if (value instanceof ArrayBuffer) return Buffer.from(new Uint8Array(value)).toString('base64');
  if (value instanceof URL) return value.href;
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'bigint') return value.toString();
  if (Array.isArray(value)) return value.map(toJsonSafe);
  if (typeof value === 'object') {
    const out = {};
    for (const [key, item] of Object.entries(value)) {
      if (item === undefined || typeof item === 'function') continue;
      out[key] = toJsonSafe(item);
    }
    return out;
  }
  return value;
}

/** Decodes and JSON-parses a fetch body (string or bytes); falls back to the raw text. */
function parseBody(body) {
  if (body == null) return null;
  let text;
  if (typeof body === 'string') text = body;
  else if (body instanceof Uint8Array) text = new TextDecoder().decode(body);
  else if (body instanceof ArrayBuffer) text = new TextDecoder().decode(new Uint8Array(body));
  else return { unparsed: String(body) };
  try {
    return JSON.parse(text);
  } catch {
    return { unparsed: text };
  }
}

function errorString(err) {
  if (err instanceof Error) return `${err.name}: ${err.message}`;
  return String(err);
}

function warningString(w) {
  if (w == null || typeof w !== 'object') return String(w);
  switch (w.type) {
    case 'unsupported':
    case 'unsupported-setting':
    case 'unsupported-tool':
    case 'compatibility': {
      const what = w.feature ?? w.setting ?? w.tool?.name ?? '';
      return `${w.type}: ${what}${w.details ? ` (${w.details})` : ''}`;
    }
    case 'other':
      return `other: ${w.message}`;
    default:
      return JSON.stringify(toJsonSafe(w));
  }
}

// Alternatives of a union that fail on their discriminator (`role`/`type` literal) or on
// the basic type of the value itself ("expected string, received array", "Must be a
// Uint8Array") are the ones the input was obviously not meant to be; hiding them keeps
// the error readable.
function isObviousMiss(issue) {
  if ((issue.code === 'invalid_type' || issue.code === 'custom') && issue.path.length === 0) {
    return true;
  }
  return (
    issue.code === 'invalid_value' &&
    issue.path.length === 1 &&
    (issue.path[0] === 'role' || issue.path[0] === 'type')
  );
}

/**
 * Formats a zod error as "path: message; ..." with paths like `2.content.0.toolCallId`
 * (message index first). Union failures (every message and part is a union) are narrowed
 * to the alternative(s) the input plausibly meant; when none is plausible, the union is
 * reported as one line listing what each alternative expected.
 */
function zodErrorString(error) {
  const lines = [];
  const walk = (issues, prefix) => {
    for (const issue of issues) {
      const path = [...prefix, ...issue.path];
      if (issue.code === 'invalid_union' && Array.isArray(issue.errors) && issue.errors.length) {
        const plausible = issue.errors.filter((alt) => !alt.some(isObviousMiss));
        if (plausible.length > 0) {
          for (const alt of plausible) walk(alt, path);
          continue;
        }
        const expected = [...new Set(issue.errors.map((alt) => alt[0]?.message ?? '?'))];
        lines.push(`${path.join('.') || '<root>'}: ${issue.message} (${expected.join(' | ')})`);
        continue;
      }
      lines.push(`${path.join('.') || '<root>'}: ${issue.message}`);
    }
  };
  walk(error.issues, []);
  return `ZodError: ${[...new Set(lines)].join('; ')}`;
}

/** Output of the stub `execute` given to tools that went through an approval request. */
const APPROVED_STUB_OUTPUT = 'judge: approved tool call, not actually executed';

/**
 * One function tool per tool name used in the history, so that every call has a declared
 * tool: some providers (Bedrock) drop tool content when no tools are given. Tools have no
 * `execute`, so nothing runs, with one exception (see below).
 *
 * Names that only ever appear on provider-executed calls (e.g. Anthropic web_search) are
 * left out: a real app declares those as provider tools, not function tools.
 *
 * Tools whose calls carry a `tool-approval-request` get `needsApproval: true` and a stub
 * `execute` returning a constant string. Reason: when the history ends with a tool message
 * holding an approved `tool-approval-response`, generateText executes that tool call before
 * calling the model (that is how approvals resume). Without `needsApproval` ai core turns
 * the approval into an "execution-denied" result ('Tool "x" does not require approval');
 * without `execute` the call stays without a result and MissingToolResultsError follows.
 * Neither is what a real app would send; the stub mimics the real app.
 */
function toolsFor(messages) {
  const names = new Set();
  const approvalCallIds = new Set();
  const approvalNames = new Set();
  const parts = [];
  for (const message of messages) {
    if (Array.isArray(message?.content)) parts.push(...message.content);
  }
  for (const part of parts) {
    if (part?.type === 'tool-approval-request') approvalCallIds.add(part.toolCallId);
  }
  for (const part of parts) {
    if (
      (part?.type === 'tool-call' || part?.type === 'tool-result') &&
      typeof part.toolName === 'string' &&
      !part.providerExecuted
    ) {
      names.add(part.toolName);
      if (part.type === 'tool-call' && approvalCallIds.has(part.toolCallId)) {
        approvalNames.add(part.toolName);
      }
    }
  }
  if (names.size === 0) return undefined;
  const tools = {};
  for (const name of names) {
    tools[name] = approvalNames.has(name)
      ? tool({
          description: 'x',
          inputSchema: jsonSchema({ type: 'object' }),
          needsApproval: true,
          execute: async () => APPROVED_STUB_OUTPUT,
        })
      : tool({ description: 'x', inputSchema: jsonSchema({ type: 'object' }) });
  }
  return tools;
}

/** 1x1 transparent PNG, returned instead of downloading anything (we are offline). */
const PLACEHOLDER_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=',
  'base64',
);

// ---------------------------------------------------------------------------
// Judging one case
// ---------------------------------------------------------------------------

async function judgeCase(testCase) {
  const id = testCase?.id ?? null;
  const result = (ok, stage, error, body = null, warnings = []) => ({
    id,
    ok,
    stage,
    error,
    body,
    warnings,
  });

  if (testCase == null || typeof testCase !== 'object') {
    return result(false, null, 'case must be an object');
  }
  const { target, messages } = testCase;
  if (!TARGETS.has(target)) {
    return result(false, null, `unknown target ${JSON.stringify(target)}`);
  }

  const parsed = messagesSchema.safeParse(messages);
  if (!parsed.success) return result(false, 'schema', zodErrorString(parsed.error));
  if (target === 'schema') return result(true, null, null);

  // `captured` is set as soon as the model (mock or provider HTTP) sees a request, which
  // tells "convert" failures (before the request) apart from "request" ones (after).
  let captured;
  const warnings = [];
  let model;
  if (target === 'core') {
    model = new MockLanguageModelV3({
      // Accept every http(s) URL as-is, so ai core never "downloads" for the mock and
      // the recorded prompt shows URLs where the history had them.
      supportedUrls: { '*/*': [/^https?:\/\//] },
      doGenerate: async (options) => {
        captured = { body: toJsonSafe(options.prompt) };
        return {
          content: [{ type: 'text', text: 'ok' }],
          finishReason: { unified: 'stop', raw: 'stop' },
          usage: {
            inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
            outputTokens: { total: 1, text: 1, reasoning: 0 },
          },
          warnings: [],
        };
      },
    });
  } else {
    const fetch = async (_url, init) => {
      captured = { body: parseBody(init?.body) };
      return new Response(JSON.stringify(CANNED[target]()), {
        status: 200,
        headers: { 'content-type': 'application/json' },
      });
    };
    model = providerModel(target, testCase.model ?? DEFAULT_MODEL[target], fetch);
  }

  try {
    const response = await generateText({
      model,
      messages,
      tools: toolsFor(messages),
      providerOptions: testCase.providerOptions,
      // Histories may legitimately contain system messages; don't warn on stderr.
      allowSystemInMessages: true,
      maxRetries: 0,
      // Offline: never download. URLs the model accepts are passed through (null);
      // anything else is replaced by placeholder bytes, and we say so in the warnings.
      experimental_download: async (requests) =>
        requests.map(({ url, isUrlSupportedByModel }) => {
          if (isUrlSupportedByModel) return null;
          warnings.push(`judge: ${url.href} not downloaded (offline), placeholder bytes used`);
          return { data: new Uint8Array(PLACEHOLDER_PNG), mediaType: undefined };
        }),
    });
    for (const w of response.warnings ?? []) warnings.push(warningString(w));
    // Self-check: the canned answer must have been parsed by the provider package.
    if (response.text !== 'ok') {
      warnings.push(`judge: canned response parsed as ${JSON.stringify(response.text)}`);
    }
    return result(true, null, null, captured?.body ?? null, warnings);
  } catch (err) {
    return result(
      false,
      captured ? 'request' : 'convert',
      errorString(err),
      captured?.body ?? null,
      warnings,
    );
  }
}

// ---------------------------------------------------------------------------
// Main
// ---------------------------------------------------------------------------

async function readStdin() {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

async function main() {
  let input;
  try {
    input = JSON.parse(await readStdin());
  } catch (err) {
    console.error(`judge.mjs: stdin is not valid JSON: ${errorString(err)}`);
    process.exit(2);
  }
  if (!Array.isArray(input?.cases)) {
    console.error('judge.mjs: expected {"cases": [...]} on stdin');
    process.exit(2);
  }

  const results = [];
  // Sequential on purpose: deterministic, and each case takes about a millisecond.
  for (const testCase of input.cases) {
    let res;
    try {
      res = await judgeCase(testCase);
    } catch (err) {
      // judgeCase catches SDK errors itself; this is a last-resort guard.
      res = {
        id: testCase?.id ?? null,
        ok: false,
        stage: null,
        error: `judge internal error: ${errorString(err)}`,
        body: null,
        warnings: [],
      };
    }
    results.push(res);
  }

  const out = JSON.stringify({ results });
  // Write and exit only once the pipe has taken everything (large outputs).
  process.stdout.write(out + '\n', () => process.exit(0));
}

main().catch((err) => {
  console.error(`judge.mjs: fatal: ${err?.stack ?? err}`);
  process.exit(1);
});

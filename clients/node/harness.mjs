// The harness of the Node client-conformance suites: each check starts its
// own examples/chatserver over a replay file of the completions it needs, in
// the order its client makes the requests, and stops it when the check ends,
// so that one check's stray request cannot shift another's completions.
//
// CHATSERVER and HARMONY name built binaries of examples/chatserver and
// cmd/harmony (clients/run builds them); when unset, they are built here, once
// per process, from this checkout.

import { test } from 'node:test';
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual, inspect } from 'node:util';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

let bins;
function binaries() {
  if (bins) return bins;
  let { CHATSERVER, HARMONY } = process.env;
  if (!CHATSERVER || !HARMONY) {
    const dir = mkdtempSync(join(tmpdir(), 'clients-bin-'));
    process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
    CHATSERVER ||= join(dir, 'chatserver');
    HARMONY ||= join(dir, 'harmony');
    for (const [out, pkg] of [[CHATSERVER, './examples/chatserver'], [HARMONY, './cmd/harmony']]) {
      if (!existsSync(out)) execFileSync('go', ['build', '-o', out, pkg], { cwd: repo, stdio: 'inherit' });
    }
  }
  bins = { CHATSERVER, HARMONY };
  return bins;
}

const encoded = new Map();

// encode returns the token ids of harmony text, special tokens included.
export function encode(text) {
  if (!encoded.has(text)) {
    const out = execFileSync(binaries().HARMONY, ['encode', '--special'], { input: text });
    encoded.set(text, JSON.parse(out.toString()));
  }
  return encoded.get(text);
}

// reasoningTokens counts the tokens of a completion's analysis messages,
// headers included: the completion starts after the prompt's
// "<|start|>assistant", and each later message with its "<|start|>".
export function reasoningTokens(completion) {
  let n = 0;
  completion.split('<|start|>').forEach((msg, i) => {
    if (/^(assistant)?<\|channel\|>analysis[<\s]/.test(msg)) n += encode((i > 0 ? '<|start|>' : '') + msg).length;
  });
  return n;
}

let flagsHelp;
// serverHas reports whether the chatserver has a flag (by its -h text).
export function serverHas(flag) {
  if (flagsHelp === undefined) {
    try {
      execFileSync(binaries().CHATSERVER, ['-h'], { stdio: 'pipe' });
      flagsHelp = '';
    } catch (e) {
      flagsHelp = String(e.stderr ?? '');
    }
  }
  return flagsHelp.includes(`-${flag} `) || flagsHelp.includes(`-${flag}\n`);
}

// startServer starts a chatserver that answers request n with completion n
// (harmony text, what the model writes after "<|start|>assistant") and is
// stopped when the test t ends. It returns the base URL, the completions
// with their token ids and reasoning token counts, and prompts(), the rendered
// prompts so far ({text, tokens} per request that reached the model).
export async function startServer(t, completions, { flags = [] } = {}) {
  const { CHATSERVER } = binaries();
  const dir = mkdtempSync(join(tmpdir(), 'clients-'));
  const replay = join(dir, 'replay.jsonl');
  const promptLog = join(dir, 'prompts.jsonl');
  const encoded = completions.map((text) => ({ text, ids: encode(text), reasoningTokens: reasoningTokens(text) }));
  writeFileSync(replay, encoded.map((c) => JSON.stringify(c.ids) + '\n').join(''));
  const child = spawn(CHATSERVER, ['-addr', '127.0.0.1:0', '-replay', replay, '-prompts', promptLog, ...flags], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  const addr = await new Promise((ok, fail) => {
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (d) => {
      stderr += d;
      const m = /chatserver: listening on http:\/\/(\S+)/.exec(stderr);
      if (m) ok(m[1]);
    });
    child.on('exit', (code) => fail(new Error(`chatserver ${flags.join(' ')} exited with ${code}: ${stderr}`)));
    child.on('error', fail);
  });
  const exited = new Promise((ok) => child.on('exit', ok));
  t.after(async () => {
    child.kill('SIGTERM');
    await exited;
    rmSync(dir, { recursive: true, force: true });
  });
  return {
    baseURL: `http://${addr}/v1`,
    completions: encoded,
    prompts() {
      if (!existsSync(promptLog)) return [];
      return readFileSync(promptLog, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
    },
    stderr: () => stderr,
  };
}

// The API key every client is given; the chatserver ignores it.
export const apiKey = 'sk-not-checked';

const show = (v) => inspect(v, { depth: 6, breakLength: Infinity });

// The failures of the running check: eq, ok and includes record a failure
// and go on, so that a check reports every field that differed; check
// throws them all at the end.
let failures = null;

function fail(msg) {
  if (failures) failures.push(msg);
  else throw new Error(msg);
}

// check declares a check: a node:test test whose failures are collected.
// An exception (from the client library, or a TypeError after a field was
// missing) ends it, after the failures recorded before it.
export function check(name, fn, opts = {}) {
  test(name, opts, async (t) => {
    failures = [];
    let err;
    try {
      await fn(t);
    } catch (e) {
      err = e;
    }
    const found = failures;
    failures = null;
    if (err) found.push(`threw ${err.name ?? 'Error'}: ${err.message}${describeCause(err)}`);
    if (found.length > 0) {
      const e = new Error(`${found.length} difference${found.length > 1 ? 's' : ''}:\n  - ${found.join('\n  - ')}`);
      e.name = 'CheckFailed';
      e.stack = `${e.name}: ${e.message}`; // where in the harness it was thrown says nothing
      throw e;
    }
  });
}

// describeCause adds what an HTTP error of a client library carries: the
// status and the body the server sent.
function describeCause(e) {
  const parts = [];
  const status = e.status ?? e.statusCode;
  if (status) parts.push(`status ${status}`);
  const body = e.responseBody ?? (e.error ? JSON.stringify(e.error) : undefined);
  if (body) parts.push(`body ${String(body).slice(0, 500)}`);
  return parts.length ? ` (${parts.join(', ')})` : '';
}

// eq records a failure unless got deep-equals want; what names the field.
export function eq(got, want, what) {
  if (!isDeepStrictEqual(got, want)) fail(`${what}: got ${show(got)}, want ${show(want)}`);
}

// ok records a failure unless cond; what says what was expected, got what
// was seen.
export function ok(cond, what, got) {
  if (!cond) fail(`${what}${got === undefined ? '' : `: got ${show(got)}`}`);
}

// includes records a failure unless the string s contains sub.
export function includes(s, sub, what) {
  if (typeof s !== 'string' || !s.includes(sub)) fail(`${what} should contain ${show(sub)}: got ${show(s)}`);
}

// usageOf returns what a response to request i should report: the prompt's
// and completion's token counts and the completion's reasoning tokens.
export function usageOf(server, i) {
  const p = server.prompts()[i];
  const c = server.completions[i];
  return { prompt: p ? p.tokens.length : NaN, completion: c.ids.length, reasoning: c.reasoningTokens };
}

// requests checks that exactly the expected requests reached the model.
export function requests(server, want) {
  eq(server.prompts().length, want, 'requests that reached the model');
}

// The model's turns the suites share: harmony text after
// "<|start|>assistant".
export const REASONING = 'The user asks what 2 + 2 is. Simple arithmetic: 4.';
export const ANSWER = '2 + 2 = 4.';
export const PLAIN = `<|channel|>analysis<|message|>${REASONING}<|end|><|start|>assistant<|channel|>final<|message|>${ANSWER}<|return|>`;

export const CALL_REASONING = 'The user wants the weather in Paris. I should call get_weather.';
export const CALL_ARGS = { city: 'Paris', unit: 'celsius' };
export const CALL = `<|channel|>analysis<|message|>${CALL_REASONING}<|end|><|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>${JSON.stringify(CALL_ARGS)}<|call|>`;
export const TOOL_RESULT = { temperature: 18, condition: 'sunny' };
export const FINAL_REASONING = 'The tool says 18 degrees and sunny. Answer briefly.';
export const FINAL_ANSWER = 'It is 18 °C and sunny in Paris.';
export const AFTER_TOOL = `<|channel|>analysis<|message|>${FINAL_REASONING}<|end|><|start|>assistant<|channel|>final<|message|>${FINAL_ANSWER}<|return|>`;

// A second call in the same turn, after the first call's result: the
// model must get the reasoning of both steps back (the turn is still in its
// tool calls), and the answer after both results.
export const TOKYO_ARGS = { city: 'Tokyo', unit: 'celsius' };
export const SECOND_CALL_REASONING = 'Paris is done. Now Tokyo.';
export const SECOND_CALL = `<|channel|>analysis<|message|>${SECOND_CALL_REASONING}<|end|><|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>${JSON.stringify(TOKYO_ARGS)}<|call|>`;
export const BOTH_ANSWER = 'Paris and Tokyo: 18 °C and sunny.';
export const AFTER_BOTH = `<|channel|>analysis<|message|>Both results are in.<|end|><|start|>assistant<|channel|>final<|message|>${BOTH_ANSWER}<|return|>`;
export const TWO_CITIES_QUESTION = 'What is the weather in Paris and in Tokyo?';

// checkTwoCallPrompt checks the prompt of the third request of a two-call
// loop: both calls, both results, and the reasoning of both steps.
export function checkTwoCallPrompt(server, i) {
  const p = server.prompts()[i];
  ok(p, `prompt ${i} was logged`);
  if (!p) return;
  for (const a of [CALL_ARGS, TOKYO_ARGS]) includes(p.text, `<|constrain|>json<|message|>${JSON.stringify(a)}<|call|>`, `prompt ${i} (a call sent back)`);
  eq(p.text.split('<|start|>functions.get_weather to=assistant').length - 1, 2, `prompt ${i}: tool results`);
  includes(p.text, `<|channel|>analysis<|message|>${CALL_REASONING}<|end|>`, `prompt ${i} (the first step's reasoning, sent back)`);
  includes(p.text, `<|channel|>analysis<|message|>${SECOND_CALL_REASONING}<|end|>`, `prompt ${i} (the second step's reasoning, sent back)`);
}

// A completion cut by the token limit inside its final message: TRUNCATED
// is the text of its first TRUNCATED_TOKENS() tokens, PARTIAL the part of
// the answer in them.
export const PARTIAL = '2 + 2';
export const TRUNCATED = `<|channel|>analysis<|message|>${REASONING}<|end|><|start|>assistant<|channel|>final<|message|>${PARTIAL}`;
export function truncatedTokens() {
  const all = encode(PLAIN);
  const cut = encode(TRUNCATED);
  if (!isDeepStrictEqual(all.slice(0, cut.length), cut)) throw new Error('harness: TRUNCATED does not encode to a prefix of PLAIN');
  return cut.length;
}

// Structured output: the answer as JSON, with the schema the request gives.
export const ANSWER_SCHEMA = {
  type: 'object',
  properties: { answer: { type: 'integer' } },
  required: ['answer'],
  additionalProperties: false,
};
export const JSON_ANSWER = { answer: 4 };
export const STRUCTURED = `<|channel|>analysis<|message|>Answer as JSON.<|end|><|start|>assistant<|channel|>final<|message|>${JSON.stringify(JSON_ANSWER)}<|return|>`;

// checkResponseFormatPrompt checks that the request's schema reached the
// prompt as harmony's "# Response Formats" section of the developer message.
export function checkResponseFormatPrompt(server, i) {
  const p = server.prompts()[i];
  ok(p, `prompt ${i} was logged`);
  if (!p) return;
  includes(p.text, '# Response Formats', `prompt ${i} (the developer message's response format)`);
  includes(p.text, '"answer"', `prompt ${i} (the response format's schema)`);
}

export const QUESTION = 'What is 2 + 2?';
export const WEATHER_QUESTION = 'What is the weather in Paris?';

// The get_weather function's JSON schema.
export const WEATHER_PARAMS = {
  type: 'object',
  properties: {
    city: { type: 'string', description: 'The city' },
    unit: { type: 'string', enum: ['celsius', 'fahrenheit'] },
  },
  required: ['city', 'unit'],
  additionalProperties: false,
};

// toolLoopPrompt checks the prompt of the request that carried the tool
// result: the call, its result and (when the client sends reasoning back)
// the reasoning before the call, as the raw chain-of-thought guide wants.
export function checkToolLoopPrompt(server, i, { reasoning = true } = {}) {
  const p = server.prompts()[i];
  ok(p, `prompt ${i} was logged`);
  if (!p) return;
  includes(p.text, `to=functions.get_weather`, `prompt ${i} (the tool call sent back)`);
  includes(p.text, `<|start|>functions.get_weather to=assistant<|channel|>commentary<|message|>`, `prompt ${i} (the tool result)`);
  includes(p.text, '"temperature":18', `prompt ${i} (the tool result's text)`);
  if (reasoning) includes(p.text, `<|channel|>analysis<|message|>${CALL_REASONING}<|end|>`, `prompt ${i} (the reasoning before the call, sent back)`);
}

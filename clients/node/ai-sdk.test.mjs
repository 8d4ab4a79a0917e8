// The Vercel AI SDK ("ai") against examples/chatserver: Chat Completions
// through @ai-sdk/openai-compatible (which reads a message's
// "reasoning_content" or "reasoning" as reasoning), Chat Completions through
// @ai-sdk/openai's openai.chat (OpenAI's own chat API has no reasoning text:
// content, tools and usage only), and Responses through @ai-sdk/openai's
// openai.responses, with its defaults (store: true, so earlier output goes
// back as item_reference items) and with store: false and encrypted
// reasoning. generateText and streamText, plain and with a tool loop
// (stopWhen: the tool's result goes back and the model answers).

import { generateText, streamText, tool, jsonSchema, isStepCount, Output } from 'ai';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import {
  check, startServer, apiKey, eq, ok, includes, usageOf, requests, checkToolLoopPrompt,
  PLAIN, REASONING, ANSWER, CALL, CALL_REASONING, CALL_ARGS, TOOL_RESULT, AFTER_TOOL, FINAL_REASONING, FINAL_ANSWER,
  QUESTION, WEATHER_QUESTION, WEATHER_PARAMS,
  PARTIAL, truncatedTokens, SECOND_CALL, TOKYO_ARGS, AFTER_BOTH, BOTH_ANSWER, TWO_CITIES_QUESTION, checkTwoCallPrompt,
  STRUCTURED, ANSWER_SCHEMA, JSON_ANSWER, checkResponseFormatPrompt,
} from './harness.mjs';

const modelId = 'gpt-oss-120b';

const compatible = (s) => createOpenAICompatible({ name: 'chatserver', baseURL: s.baseURL, apiKey, includeUsage: true })(modelId);
// supportsStructuredOutputs: send the output schema as a json_schema
// response_format (without it the provider sends json_object only).
const compatibleStructured = (s) => createOpenAICompatible({
  name: 'chatserver', baseURL: s.baseURL, apiKey, includeUsage: true, supportsStructuredOutputs: true,
})(modelId);
const openaiChat = (s) => createOpenAI({ baseURL: s.baseURL, apiKey }).chat(modelId);
const openaiResponses = (s) => createOpenAI({ baseURL: s.baseURL, apiKey }).responses(modelId);

function weatherTools(calls) {
  return {
    get_weather: tool({
      description: 'Current weather of a city',
      inputSchema: jsonSchema(WEATHER_PARAMS),
      execute: async (input) => {
        calls.push(input);
        return TOOL_RESULT;
      },
    }),
  };
}

// run calls generateText or streamText and returns what a user reads: the
// steps, and for streamText the text and reasoning deltas per step and the
// error parts (streamText reports errors as parts, not by throwing).
async function run(mode, args) {
  const common = { maxRetries: 0, ...args };
  if (mode === 'generate') {
    const r = await generateText(common);
    return { result: r, steps: r.steps, text: r.text, finishReason: r.finishReason, totalUsage: r.totalUsage, streamed: null, errors: [] };
  }
  const r = streamText({ ...common, onError: () => {} });
  const streamed = [];
  const errors = [];
  let cur;
  for await (const part of r.fullStream) {
    switch (part.type) {
      case 'start-step': cur = { text: '', reasoning: '', toolCalls: [] }; streamed.push(cur); break;
      case 'text-delta': cur.text += part.text; break;
      case 'reasoning-delta': cur.reasoning += part.text; break;
      case 'tool-call': cur.toolCalls.push(part); break;
      case 'error': errors.push(part.error); break;
    }
  }
  if (errors.length > 0) {
    const e = errors[0];
    throw Object.assign(new Error(`streamText error part: ${e?.message ?? e}`), { status: e?.statusCode, responseBody: e?.responseBody });
  }
  return {
    result: r, steps: await r.steps, text: await r.text, finishReason: await r.finishReason, totalUsage: await r.totalUsage, streamed, errors,
  };
}

function checkUsage(usage, want, what) {
  ok(usage, `${what}: usage present`, usage);
  if (!usage) return;
  eq(usage.inputTokens, want.prompt, `${what}: usage.inputTokens`);
  eq(usage.outputTokens, want.completion, `${what}: usage.outputTokens`);
  eq(usage.totalTokens, want.prompt + want.completion, `${what}: usage.totalTokens`);
  if (want.reasoning !== undefined) {
    eq(usage.outputTokenDetails?.reasoningTokens, want.reasoning, `${what}: usage.outputTokenDetails.reasoningTokens`);
    eq(usage.outputTokenDetails?.textTokens, want.completion - want.reasoning, `${what}: usage.outputTokenDetails.textTokens`);
  }
}

const sum = (a, b) => ({ prompt: a.prompt + b.prompt, completion: a.completion + b.completion, reasoning: a.reasoning + b.reasoning });

// checkStep checks one step: its text, reasoning (when the provider
// exposes reasoning text), tool calls, finish reason and usage.
function checkStep(got, streamed, want, what) {
  eq(got.text, want.text, `${what}: text`);
  if (streamed) eq(streamed.text, want.text, `${what}: concatenated text-delta parts`);
  if (want.reasoning !== undefined) {
    eq(got.reasoningText, want.reasoning, `${what}: reasoningText`);
    eq(got.reasoning.length, 1, `${what}: reasoning parts`);
    if (streamed) eq(streamed.reasoning, want.reasoning, `${what}: concatenated reasoning-delta parts`);
  }
  if (want.call) {
    eq(got.toolCalls.map((c) => [c.toolName, c.input]), [['get_weather', CALL_ARGS]], `${what}: toolCalls (name, parsed input)`);
    ok(/^call_/.test(got.toolCalls[0]?.toolCallId ?? ''), `${what}: toolCalls[0].toolCallId starts with call_`, got.toolCalls[0]?.toolCallId);
    eq(got.toolResults.map((r) => r.output), [TOOL_RESULT], `${what}: toolResults (output)`);
    if (streamed) eq(streamed.toolCalls.map((c) => c.input), [CALL_ARGS], `${what}: tool-call parts (parsed input)`);
    eq(got.finishReason, 'tool-calls', `${what}: finishReason`);
  } else {
    eq(got.toolCalls, [], `${what}: toolCalls`);
    eq(got.finishReason, 'stop', `${what}: finishReason`);
  }
  checkUsage(got.usage, want.usage, `${what}`);
}

// The two checks every provider gets: a plain answer, and a tool loop.
function plainCheck(name, model, mode, { reasoning = true, providerOptions } = {}) {
  check(name, async (t) => {
    const s = await startServer(t, [PLAIN]);
    const r = await run(mode, { model: model(s), prompt: QUESTION, providerOptions });
    eq(r.steps.length, 1, 'steps');
    const want = { text: ANSWER, usage: usageOf(s, 0) };
    if (reasoning) want.reasoning = REASONING;
    else want.usage = { ...want.usage, reasoning: undefined };
    if (r.steps[0]) checkStep(r.steps[0], r.streamed?.[0], want, 'step 0');
    eq(r.text, ANSWER, 'text');
    eq(r.finishReason, 'stop', 'finishReason');
    requests(s, 1);
  });
}

function toolLoopCheck(name, model, mode, { reasoning = true, sendsReasoningBack = true, providerOptions, opts } = {}) {
  check(name, async (t) => {
    const s = await startServer(t, [CALL, AFTER_TOOL]);
    const calls = [];
    const r = await run(mode, {
      model: model(s), prompt: WEATHER_QUESTION, tools: weatherTools(calls), stopWhen: isStepCount(5), providerOptions,
    });
    eq(calls, [CALL_ARGS], 'the inputs get_weather was executed with');
    eq(r.steps.length, 2, 'steps');
    const u0 = usageOf(s, 0);
    const u1 = usageOf(s, 1);
    const w0 = { text: '', call: true, usage: reasoning ? u0 : { ...u0, reasoning: undefined } };
    const w1 = { text: FINAL_ANSWER, usage: reasoning ? u1 : { ...u1, reasoning: undefined } };
    if (reasoning) {
      w0.reasoning = CALL_REASONING;
      w1.reasoning = FINAL_REASONING;
    }
    if (r.steps[0]) checkStep(r.steps[0], r.streamed?.[0], w0, 'step 0 (the call)');
    if (r.steps[1]) checkStep(r.steps[1], r.streamed?.[1], w1, 'step 1 (the answer)');
    eq(r.text, FINAL_ANSWER, 'text');
    eq(r.finishReason, 'stop', 'finishReason');
    checkUsage(r.totalUsage, reasoning ? sum(u0, u1) : { ...sum(u0, u1), reasoning: undefined }, 'totalUsage');
    checkToolLoopPrompt(s, 1, { reasoning: sendsReasoningBack });
    if (opts?.after) opts.after(r, s);
    requests(s, 2);
  });
}

for (const mode of ['generate', 'stream']) {
  const fn = mode === 'generate' ? 'generateText' : 'streamText';
  plainCheck(`ai-sdk openai-compatible · Chat Completions · ${fn} · reasoning`, compatible, mode);
  toolLoopCheck(`ai-sdk openai-compatible · Chat Completions · ${fn} · tool loop`, compatible, mode);
}

// openai.chat: OpenAI's chat API returns no reasoning text, and the
// provider reads none; it sends none back either.
for (const mode of ['generate', 'stream']) {
  const fn = mode === 'generate' ? 'generateText' : 'streamText';
  plainCheck(`ai-sdk openai.chat · Chat Completions · ${fn} · plain`, openaiChat, mode, { reasoning: false });
  toolLoopCheck(`ai-sdk openai.chat · Chat Completions · ${fn} · tool loop`, openaiChat, mode, { reasoning: false, sendsReasoningBack: false });
}

// checkResponsesReasoning checks the reasoning parts of a Responses step:
// one per reasoning item, with the item's id (what the provider sends back)
// and, when encrypted is set, its encrypted_content. The provider reads a
// reasoning item's summary only, not its reasoning_text content, so the
// parts' text is not checked here (see the todo check below).
function checkResponsesReasoning(step, what, { encrypted = false } = {}) {
  const parts = step.content.filter((p) => p.type === 'reasoning');
  eq(parts.length, 1, `${what}: reasoning parts of content (one per reasoning item)`);
  const meta = parts[0]?.providerMetadata?.openai;
  ok(/^rs_/.test(meta?.itemId ?? ''), `${what}: reasoning part providerMetadata.openai.itemId starts with rs_`, meta);
  if (encrypted) {
    ok(typeof meta?.reasoningEncryptedContent === 'string' && meta.reasoningEncryptedContent.length > 0,
      `${what}: reasoning part providerMetadata.openai.reasoningEncryptedContent (the item's encrypted_content, asked for with include)`, meta);
  }
}

const statelessOptions = { openai: { store: false, include: ['reasoning.encrypted_content'] } };

for (const mode of ['generate', 'stream']) {
  const fn = mode === 'generate' ? 'generateText' : 'streamText';
  check(`ai-sdk openai.responses · Responses · ${fn} · plain`, async (t) => {
    const s = await startServer(t, [PLAIN]);
    const r = await run(mode, { model: openaiResponses(s), prompt: QUESTION });
    eq(r.steps.length, 1, 'steps');
    if (r.steps[0]) {
      checkStep(r.steps[0], r.streamed?.[0], { text: ANSWER, usage: usageOf(s, 0) }, 'step 0');
      checkResponsesReasoning(r.steps[0], 'step 0');
    }
    requests(s, 1);
  });

  // Default settings: store is true, so step 1 sends the reasoning and the
  // call of step 0 back as {"type": "item_reference", "id": "rs_…"} items,
  // which the server must resolve from the items it stored.
  toolLoopCheck(`ai-sdk openai.responses · Responses · ${fn} · tool loop (defaults: store, item_reference)`, openaiResponses, mode, {
    reasoning: false,
    opts: { after: (r) => r.steps[0] && checkResponsesReasoning(r.steps[0], 'step 0') },
  });

  // Stateless: store false and the reasoning's encrypted_content, which the
  // provider sends back in step 1 as a reasoning item (it drops reasoning
  // items that have none).
  toolLoopCheck(`ai-sdk openai.responses · Responses · ${fn} · tool loop (store: false, encrypted reasoning)`, openaiResponses, mode, {
    reasoning: false,
    providerOptions: statelessOptions,
    opts: { after: (r) => r.steps[0] && checkResponsesReasoning(r.steps[0], 'step 0', { encrypted: true }) },
  });
}

// The provider reads a Responses reasoning item's text from its summary
// (summary_text parts, response.reasoning_summary_text.delta events) only:
// gpt-oss's raw reasoning, which servers send as reasoning_text content
// (response.reasoning_text.delta), never reaches reasoningText. A todo, not
// a failure: the server sends what the Responses API defines for raw
// reasoning; the check says when that changes on either side.
for (const mode of ['generate', 'stream']) {
  const fn = mode === 'generate' ? 'generateText' : 'streamText';
  check(`ai-sdk openai.responses · Responses · ${fn} · reasoningText`, async (t) => {
    const s = await startServer(t, [PLAIN]);
    const r = await run(mode, { model: openaiResponses(s), prompt: QUESTION });
    eq(r.steps[0]?.reasoningText, REASONING, 'step 0: reasoningText');
  }, { todo: '@ai-sdk/openai reads Responses reasoning from summary_text only, not reasoning_text content' });
}

// The token limit: the completion is cut inside its final message.
const providers = [
  ['openai-compatible', 'Chat Completions', compatible, true],
  ['openai.responses', 'Responses', openaiResponses, false],
];
for (const [name, api, model, reads] of providers) {
  for (const mode of ['generate', 'stream']) {
    const fn = mode === 'generate' ? 'generateText' : 'streamText';
    check(`ai-sdk ${name} · ${api} · ${fn} · maxOutputTokens (length)`, async (t) => {
      const s = await startServer(t, [PLAIN]);
      const limit = truncatedTokens();
      const r = await run(mode, { model: model(s), prompt: QUESTION, maxOutputTokens: limit });
      eq(r.text, PARTIAL, 'text (cut)');
      if (reads) eq(r.steps[0]?.reasoningText, REASONING, 'step 0: reasoningText');
      eq(r.finishReason, 'length', 'finishReason');
      checkUsage(r.totalUsage, { ...usageOf(s, 0), completion: limit, reasoning: reads ? usageOf(s, 0).reasoning : undefined }, 'totalUsage');
      requests(s, 1);
    });
  }
}

// Two calls in one turn, the second after the first's result: the model
// gets the reasoning of both steps back, from reasoning_content (Chat),
// from item references (Responses, store) or from encrypted_content
// (Responses, store: false).
const twoCallProviders = [
  ['openai-compatible · Chat Completions', compatible, undefined],
  ['openai.responses · Responses', openaiResponses, undefined],
  ['openai.responses · Responses', openaiResponses, statelessOptions],
];
for (const [name, model, providerOptions] of twoCallProviders) {
  for (const mode of ['generate', 'stream']) {
    const fn = mode === 'generate' ? 'generateText' : 'streamText';
    const variant = providerOptions ? ' (store: false, encrypted reasoning)' : name.includes('Responses') ? ' (defaults: store, item_reference)' : '';
    check(`ai-sdk ${name} · ${fn} · two-call tool loop${variant}`, async (t) => {
      const s = await startServer(t, [CALL, SECOND_CALL, AFTER_BOTH]);
      const calls = [];
      const r = await run(mode, {
        model: model(s), prompt: TWO_CITIES_QUESTION, tools: weatherTools(calls), stopWhen: isStepCount(5), providerOptions,
      });
      eq(calls, [CALL_ARGS, TOKYO_ARGS], 'the inputs get_weather was executed with');
      eq(r.steps.map((st) => st.finishReason), ['tool-calls', 'tool-calls', 'stop'], "the steps' finishReason");
      eq(r.text, BOTH_ANSWER, 'text');
      checkTwoCallPrompt(s, 2);
      requests(s, 3);
    });
  }
}

// Structured output (output: Output.object): the schema goes to the server
// as a json_schema response format, and the JSON answer comes back parsed.
const structuredProviders = [
  ['openai-compatible (supportsStructuredOutputs)', 'Chat Completions', compatibleStructured],
  ['openai.chat', 'Chat Completions', openaiChat],
  ['openai.responses', 'Responses', openaiResponses],
];
for (const [name, api, model] of structuredProviders) {
  for (const mode of ['generate', 'stream']) {
    const fn = mode === 'generate' ? 'generateText' : 'streamText';
    check(`ai-sdk ${name} · ${api} · ${fn} · Output.object`, async (t) => {
      const s = await startServer(t, [STRUCTURED]);
      const args = { model: model(s), prompt: QUESTION, output: Output.object({ schema: jsonSchema(ANSWER_SCHEMA) }) };
      if (mode === 'generate') {
        const r = await generateText({ ...args, maxRetries: 0 });
        eq(r.output, JSON_ANSWER, 'output');
      } else {
        const errors = [];
        const r = streamText({ ...args, maxRetries: 0, onError: ({ error }) => errors.push(error) });
        let last;
        for await (const partial of r.partialOutputStream) last = partial;
        eq(errors.map((e) => e?.message ?? String(e)), [], 'stream errors');
        eq(last, JSON_ANSWER, 'the last partialOutputStream value');
        eq(await r.output, JSON_ANSWER, 'output');
      }
      checkResponseFormatPrompt(s, 0);
      requests(s, 1);
    });
  }
}

// A second user turn after an answer, with the default store: the provider
// sends the first answer back as item references (rs_…, msg_…).
for (const mode of ['generate', 'stream']) {
  const fn = mode === 'generate' ? 'generateText' : 'streamText';
  check(`ai-sdk openai.responses · Responses · ${fn} · second user turn (defaults: store, item_reference)`, async (t) => {
    const s = await startServer(t, [PLAIN, AFTER_TOOL]);
    const model = openaiResponses(s);
    const r1 = await run(mode, { model, prompt: QUESTION });
    eq(r1.text, ANSWER, 'first turn: text');
    const messages = [{ role: 'user', content: QUESTION }, ...(await r1.result.response).messages, { role: 'user', content: WEATHER_QUESTION }];
    const r2 = await run(mode, { model, messages });
    eq(r2.text, FINAL_ANSWER, 'second turn: text');
    const p = s.prompts()[1];
    ok(p, 'prompt 1 was logged');
    if (p) {
      includes(p.text, `<|channel|>final<|message|>${ANSWER}<|end|>`, 'prompt 1 (the first answer, sent back)');
      ok(!p.text.includes(REASONING), "prompt 1 leaves out the first turn's reasoning (raw chain-of-thought guide)", p.text);
    }
    requests(s, 2);
  });
}

// forceReasoning: the provider treats the model as a reasoning model — the
// system prompt goes as a developer message, reasoningEffort as
// reasoning.effort, and with store: false it asks for encrypted reasoning
// by itself.
for (const [variant, extra] of [['', {}], [', store: false', { store: false }]]) {
  check(`ai-sdk openai.responses · Responses · generateText · tool loop (forceReasoning, reasoningEffort low${variant})`, async (t) => {
    const s = await startServer(t, [CALL, AFTER_TOOL]);
    const calls = [];
    const r = await run('generate', {
      model: openaiResponses(s), system: 'Answer briefly.', prompt: WEATHER_QUESTION, tools: weatherTools(calls), stopWhen: isStepCount(5),
      providerOptions: { openai: { forceReasoning: true, reasoningEffort: 'low', ...extra } },
    });
    eq(calls, [CALL_ARGS], 'the inputs get_weather was executed with');
    eq(r.text, FINAL_ANSWER, 'text');
    const p = s.prompts()[0]?.text ?? '';
    includes(p, 'Reasoning: low', 'prompt 0 (the system message\'s reasoning effort)');
    includes(p, 'Answer briefly.', 'prompt 0 (the developer message\'s instructions)');
    checkToolLoopPrompt(s, 1);
    requests(s, 2);
  });
}

// The official OpenAI Node SDK (npm "openai") against examples/chatserver:
// Chat Completions and Responses, plain and streamed, with a tool loop, and
// reasoning read where the SDK leaves it: the raw "reasoning" field of a chat
// message or delta (the SDK has no typed field for it), and the Responses
// reasoning item's reasoning_text content.

import OpenAI from 'openai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  check, startServer, apiKey, includes, eq, ok, usageOf, requests, checkToolLoopPrompt,
  PLAIN, REASONING, ANSWER, CALL, CALL_REASONING, CALL_ARGS, TOOL_RESULT, AFTER_TOOL, FINAL_REASONING, FINAL_ANSWER,
  QUESTION, WEATHER_QUESTION, WEATHER_PARAMS,
  STRUCTURED, ANSWER_SCHEMA, JSON_ANSWER, checkResponseFormatPrompt,
  PARTIAL, truncatedTokens, SECOND_CALL, SECOND_CALL_REASONING, TOKYO_ARGS, AFTER_BOTH, BOTH_ANSWER, TWO_CITIES_QUESTION, checkTwoCallPrompt,
} from './harness.mjs';

const model = 'gpt-oss-120b';
const client = (s) => new OpenAI({ baseURL: s.baseURL, apiKey, maxRetries: 0 });

const chatTools = [{
  type: 'function',
  function: { name: 'get_weather', description: 'Current weather of a city', parameters: WEATHER_PARAMS },
}];
const responsesTools = [{
  type: 'function', name: 'get_weather', description: 'Current weather of a city', parameters: WEATHER_PARAMS, strict: true,
}];

function checkChatUsage(usage, want, what) {
  ok(usage, `${what}: usage present`, usage);
  eq(usage.prompt_tokens, want.prompt, `${what}: usage.prompt_tokens`);
  eq(usage.completion_tokens, want.completion, `${what}: usage.completion_tokens`);
  eq(usage.total_tokens, want.prompt + want.completion, `${what}: usage.total_tokens`);
  eq(usage.completion_tokens_details?.reasoning_tokens, want.reasoning, `${what}: usage.completion_tokens_details.reasoning_tokens`);
  ok(want.reasoning > 0 && want.reasoning < want.completion, `${what}: 0 < reasoning tokens < completion tokens`, want);
}

function checkResponsesUsage(usage, want, what) {
  ok(usage, `${what}: usage present`, usage);
  eq(usage.input_tokens, want.prompt, `${what}: usage.input_tokens`);
  eq(usage.output_tokens, want.completion, `${what}: usage.output_tokens`);
  eq(usage.total_tokens, want.prompt + want.completion, `${what}: usage.total_tokens`);
  eq(usage.output_tokens_details?.reasoning_tokens, want.reasoning, `${what}: usage.output_tokens_details.reasoning_tokens`);
}

// readChatStream concatenates a chat stream's deltas as a user does.
async function readChatStream(stream) {
  const out = { role: undefined, content: '', reasoning: '', toolCalls: [], finishReason: undefined, usage: undefined, chunks: 0, choicelessChunks: 0 };
  for await (const chunk of stream) {
    out.chunks++;
    if (chunk.usage) out.usage = chunk.usage;
    if (chunk.choices.length === 0) {
      out.choicelessChunks++;
      continue;
    }
    const { delta, finish_reason: fr } = chunk.choices[0];
    if (delta.role) out.role = delta.role;
    if (delta.content) out.content += delta.content;
    if (delta.reasoning) out.reasoning += delta.reasoning;
    for (const tc of delta.tool_calls ?? []) {
      const acc = (out.toolCalls[tc.index] ??= { id: '', type: '', function: { name: '', arguments: '' } });
      if (tc.id) acc.id += tc.id;
      if (tc.type) acc.type = tc.type;
      if (tc.function?.name) acc.function.name += tc.function.name;
      if (tc.function?.arguments) acc.function.arguments += tc.function.arguments;
    }
    if (fr) out.finishReason = fr;
  }
  return out;
}

check('openai · Chat Completions · plain · reasoning', async (t) => {
  const s = await startServer(t, [PLAIN]);
  const r = await client(s).chat.completions.create({ model, messages: [{ role: 'user', content: QUESTION }], reasoning_effort: 'low' });
  const m = r.choices[0].message;
  eq(r.object, 'chat.completion', 'object');
  eq(r.model, model, 'model');
  eq(m.role, 'assistant', 'message.role');
  eq(m.content, ANSWER, 'message.content');
  eq(m.reasoning, REASONING, 'message.reasoning (raw field)');
  eq(m.tool_calls ?? [], [], 'message.tool_calls');
  eq(r.choices[0].finish_reason, 'stop', 'finish_reason');
  checkChatUsage(r.usage, usageOf(s, 0), 'response');
  requests(s, 1);
});

check('openai · Chat Completions · streamed · reasoning', async (t) => {
  const s = await startServer(t, [PLAIN]);
  const stream = await client(s).chat.completions.create({
    model, messages: [{ role: 'user', content: QUESTION }], stream: true, stream_options: { include_usage: true },
  });
  const got = await readChatStream(stream);
  eq(got.role, 'assistant', 'delta.role');
  eq(got.content, ANSWER, 'concatenated delta.content');
  eq(got.reasoning, REASONING, 'concatenated delta.reasoning (raw field)');
  eq(got.finishReason, 'stop', 'finish_reason');
  eq(got.choicelessChunks, 1, 'chunks without choices (the usage chunk of include_usage)');
  checkChatUsage(got.usage, usageOf(s, 0), 'usage chunk');
  requests(s, 1);
});

check('openai · Chat Completions · streamed · stream helper (finalChatCompletion)', async (t) => {
  const s = await startServer(t, [PLAIN]);
  const stream = client(s).chat.completions.stream({
    model, messages: [{ role: 'user', content: QUESTION }], stream_options: { include_usage: true },
  });
  let content = '';
  let reasoning = '';
  stream.on('content', (delta) => { content += delta; });
  // The helper's accumulator does not concatenate fields it does not know
  // (its message.reasoning is the last delta's): reasoning is read from the
  // chunks, as a user of the helper must.
  stream.on('chunk', (chunk) => { reasoning += chunk.choices[0]?.delta?.reasoning ?? ''; });
  const r = await stream.finalChatCompletion();
  eq(content, ANSWER, "the helper's content events");
  eq(reasoning, REASONING, "concatenated delta.reasoning of the helper's chunk events");
  eq(r.choices[0].message.content, ANSWER, 'finalChatCompletion().choices[0].message.content');
  eq(r.choices[0].finish_reason, 'stop', 'finish_reason');
  checkChatUsage(r.usage, usageOf(s, 0), 'finalChatCompletion().usage');
  requests(s, 1);
});

check('openai · Chat Completions · plain · tool loop', async (t) => {
  const s = await startServer(t, [CALL, AFTER_TOOL]);
  const c = client(s);
  const messages = [{ role: 'user', content: WEATHER_QUESTION }];
  const r1 = await c.chat.completions.create({ model, messages, tools: chatTools });
  const m1 = r1.choices[0].message;
  eq(r1.choices[0].finish_reason, 'tool_calls', 'first response: finish_reason');
  eq(m1.content, null, 'first response: message.content');
  eq(m1.reasoning, CALL_REASONING, 'first response: message.reasoning (raw field)');
  eq(m1.tool_calls?.length, 1, 'first response: number of tool_calls');
  const call = m1.tool_calls[0];
  eq(call.type, 'function', 'tool_calls[0].type');
  eq(call.function.name, 'get_weather', 'tool_calls[0].function.name');
  eq(JSON.parse(call.function.arguments), CALL_ARGS, 'tool_calls[0].function.arguments, parsed');
  ok(/^call_/.test(call.id), 'tool_calls[0].id starts with call_', call.id);
  checkChatUsage(r1.usage, usageOf(s, 0), 'first response');

  messages.push(m1, { role: 'tool', tool_call_id: call.id, content: JSON.stringify(TOOL_RESULT) });
  const r2 = await c.chat.completions.create({ model, messages, tools: chatTools });
  const m2 = r2.choices[0].message;
  eq(m2.content, FINAL_ANSWER, 'second response: message.content');
  eq(m2.reasoning, FINAL_REASONING, 'second response: message.reasoning');
  eq(r2.choices[0].finish_reason, 'stop', 'second response: finish_reason');
  checkChatUsage(r2.usage, usageOf(s, 1), 'second response');
  checkToolLoopPrompt(s, 1);
  requests(s, 2);
});

check('openai · Chat Completions · streamed · tool loop', async (t) => {
  const s = await startServer(t, [CALL, AFTER_TOOL]);
  const c = client(s);
  const messages = [{ role: 'user', content: WEATHER_QUESTION }];
  const opts = { model, tools: chatTools, stream: true, stream_options: { include_usage: true } };
  const g1 = await readChatStream(await c.chat.completions.create({ ...opts, messages }));
  eq(g1.finishReason, 'tool_calls', 'first stream: finish_reason');
  eq(g1.content, '', 'first stream: concatenated delta.content');
  eq(g1.reasoning, CALL_REASONING, 'first stream: concatenated delta.reasoning');
  eq(g1.toolCalls.length, 1, 'first stream: number of tool calls');
  const call = g1.toolCalls[0];
  eq(call.type, 'function', 'tool call type');
  eq(call.function.name, 'get_weather', 'tool call function.name');
  eq(JSON.parse(call.function.arguments), CALL_ARGS, 'tool call function.arguments (concatenated deltas), parsed');
  ok(/^call_/.test(call.id), 'tool call id starts with call_', call.id);
  checkChatUsage(g1.usage, usageOf(s, 0), 'first stream');

  messages.push({ role: 'assistant', content: null, reasoning: g1.reasoning, tool_calls: g1.toolCalls });
  messages.push({ role: 'tool', tool_call_id: call.id, content: JSON.stringify(TOOL_RESULT) });
  const g2 = await readChatStream(await c.chat.completions.create({ ...opts, messages }));
  eq(g2.content, FINAL_ANSWER, 'second stream: concatenated delta.content');
  eq(g2.reasoning, FINAL_REASONING, 'second stream: concatenated delta.reasoning');
  eq(g2.finishReason, 'stop', 'second stream: finish_reason');
  checkChatUsage(g2.usage, usageOf(s, 1), 'second stream');
  checkToolLoopPrompt(s, 1);
  requests(s, 2);
});

check('openai · Chat Completions · streamed · runTools helper loop', async (t) => {
  const s = await startServer(t, [CALL, AFTER_TOOL]);
  const calls = [];
  const runner = client(s).chat.completions.runTools({
    model,
    stream: true,
    messages: [{ role: 'user', content: WEATHER_QUESTION }],
    tools: [{
      type: 'function',
      function: {
        name: 'get_weather',
        description: 'Current weather of a city',
        parameters: WEATHER_PARAMS,
        parse: JSON.parse,
        function: (args) => { calls.push(args); return TOOL_RESULT; },
      },
    }],
  });
  const content = await runner.finalContent();
  eq(calls, [CALL_ARGS], 'the arguments the helper called get_weather with');
  eq(content, FINAL_ANSWER, 'finalContent()');
  // runTools sanitizes the messages it sends back: the assistant's
  // reasoning field is not among them, so the model does not get its chain
  // of thought back (the SDK's choice, not the server's).
  checkToolLoopPrompt(s, 1, { reasoning: false });
  requests(s, 2);
});

function reasoningTextOf(item) {
  return (item.content ?? []).filter((p) => p.type === 'reasoning_text').map((p) => p.text).join('');
}

function checkResponseOutput(r, { reasoning, text, call }, what) {
  const types = r.output.map((it) => it.type);
  eq(types, call ? ['reasoning', 'function_call'] : ['reasoning', 'message'], `${what}: output item types`);
  const [rs, second] = r.output;
  ok(/^rs_/.test(rs.id ?? ''), `${what}: reasoning item id starts with rs_`, rs.id);
  eq(reasoningTextOf(rs), reasoning, `${what}: reasoning item content (reasoning_text)`);
  if (call) {
    eq(second.name, 'get_weather', `${what}: function_call.name`);
    eq(JSON.parse(second.arguments), CALL_ARGS, `${what}: function_call.arguments, parsed`);
    ok(/^call_/.test(second.call_id ?? ''), `${what}: function_call.call_id starts with call_`, second.call_id);
    eq(second.status, 'completed', `${what}: function_call.status`);
    eq(r.output_text, '', `${what}: output_text`);
  } else {
    eq(second.role, 'assistant', `${what}: message.role`);
    eq(second.status, 'completed', `${what}: message.status`);
    eq(second.content.map((p) => p.type), ['output_text'], `${what}: message content part types`);
    eq(r.output_text, text, `${what}: output_text`);
  }
  eq(r.status, 'completed', `${what}: status`);
  eq(r.object, 'response', `${what}: object`);
}

check('openai · Responses · plain · reasoning', async (t) => {
  const s = await startServer(t, [PLAIN]);
  const r = await client(s).responses.create({ model, input: QUESTION, reasoning: { effort: 'low' } });
  checkResponseOutput(r, { reasoning: REASONING, text: ANSWER }, 'response');
  eq(r.model, model, 'model');
  checkResponsesUsage(r.usage, usageOf(s, 0), 'response');
  requests(s, 1);
});

// readResponseStream reads the events and returns them with the final
// response of the SDK's stream helper.
async function streamResponse(c, body) {
  const stream = c.responses.stream(body);
  const events = [];
  for await (const e of stream) events.push(e);
  const final = await stream.finalResponse();
  return { events, final };
}

function checkEventSequence(events, what) {
  const types = events.map((e) => e.type);
  eq(types[0], 'response.created', `${what}: first event`);
  eq(types[1], 'response.in_progress', `${what}: second event`);
  eq(types.at(-1), 'response.completed', `${what}: last event`);
  eq(events.map((e) => e.sequence_number), events.map((_, i) => i), `${what}: sequence_number 0, 1, 2, …`);
  return types;
}

check('openai · Responses · streamed · reasoning', async (t) => {
  const s = await startServer(t, [PLAIN]);
  const { events, final } = await streamResponse(client(s), { model, input: QUESTION });
  const types = checkEventSequence(events, 'events');
  for (const want of ['response.output_item.added', 'response.reasoning_text.delta', 'response.reasoning_text.done',
    'response.content_part.added', 'response.output_text.delta', 'response.output_text.done', 'response.content_part.done', 'response.output_item.done']) {
    ok(types.includes(want), `an event ${want}`, types);
  }
  const reasoning = events.filter((e) => e.type === 'response.reasoning_text.delta').map((e) => e.delta).join('');
  eq(reasoning, REASONING, 'concatenated response.reasoning_text.delta');
  const text = events.filter((e) => e.type === 'response.output_text.delta').map((e) => e.delta).join('');
  eq(text, ANSWER, 'concatenated response.output_text.delta');
  checkResponseOutput(final, { reasoning: REASONING, text: ANSWER }, 'finalResponse()');
  checkResponsesUsage(final.usage, usageOf(s, 0), 'finalResponse()');
  // The event's response is the wire's: the SDK adds output_text only to
  // what it returns.
  const completed = { ...events.at(-1).response, output_text: ANSWER };
  checkResponseOutput(completed, { reasoning: REASONING, text: ANSWER }, 'response.completed');
  requests(s, 1);
});

check('openai · Responses · plain · tool loop', async (t) => {
  const s = await startServer(t, [CALL, AFTER_TOOL]);
  const c = client(s);
  const input = [{ role: 'user', content: WEATHER_QUESTION }];
  const r1 = await c.responses.create({ model, input, tools: responsesTools });
  checkResponseOutput(r1, { reasoning: CALL_REASONING, call: true }, 'first response');
  checkResponsesUsage(r1.usage, usageOf(s, 0), 'first response');
  const call = r1.output.find((it) => it.type === 'function_call');
  // The loop of OpenAI's function-calling guide: the output goes back
  // whole, then the result.
  input.push(...r1.output, { type: 'function_call_output', call_id: call.call_id, output: JSON.stringify(TOOL_RESULT) });
  const r2 = await c.responses.create({ model, input, tools: responsesTools });
  checkResponseOutput(r2, { reasoning: FINAL_REASONING, text: FINAL_ANSWER }, 'second response');
  checkResponsesUsage(r2.usage, usageOf(s, 1), 'second response');
  checkToolLoopPrompt(s, 1);
  requests(s, 2);
});

check('openai · Responses · streamed · tool loop', async (t) => {
  const s = await startServer(t, [CALL, AFTER_TOOL]);
  const c = client(s);
  const input = [{ role: 'user', content: WEATHER_QUESTION }];
  const { events: e1, final: r1 } = await streamResponse(c, { model, input, tools: responsesTools });
  const types = checkEventSequence(e1, 'first stream');
  ok(types.includes('response.function_call_arguments.delta'), 'an event response.function_call_arguments.delta', types);
  const done = e1.find((e) => e.type === 'response.function_call_arguments.done');
  ok(done, 'an event response.function_call_arguments.done', types);
  eq(JSON.parse(done.arguments), CALL_ARGS, 'response.function_call_arguments.done: arguments, parsed');
  const args = e1.filter((e) => e.type === 'response.function_call_arguments.delta').map((e) => e.delta).join('');
  eq(JSON.parse(args), CALL_ARGS, 'concatenated response.function_call_arguments.delta, parsed');
  checkResponseOutput(r1, { reasoning: CALL_REASONING, call: true }, 'first finalResponse()');
  checkResponsesUsage(r1.usage, usageOf(s, 0), 'first finalResponse()');
  const call = r1.output.find((it) => it.type === 'function_call');
  input.push(...r1.output, { type: 'function_call_output', call_id: call.call_id, output: JSON.stringify(TOOL_RESULT) });
  const { events: e2, final: r2 } = await streamResponse(c, { model, input, tools: responsesTools });
  checkEventSequence(e2, 'second stream');
  checkResponseOutput(r2, { reasoning: FINAL_REASONING, text: FINAL_ANSWER }, 'second finalResponse()');
  checkResponsesUsage(r2.usage, usageOf(s, 1), 'second finalResponse()');
  checkToolLoopPrompt(s, 1);
  requests(s, 2);
});

// The token limit: the completion is cut inside its final message.

check('openai · Chat Completions · plain · max_completion_tokens (length)', async (t) => {
  const s = await startServer(t, [PLAIN]);
  const limit = truncatedTokens();
  const r = await client(s).chat.completions.create({ model, messages: [{ role: 'user', content: QUESTION }], max_completion_tokens: limit });
  const m = r.choices[0].message;
  eq(m.content, PARTIAL, 'message.content (cut)');
  eq(m.reasoning, REASONING, 'message.reasoning');
  eq(r.choices[0].finish_reason, 'length', 'finish_reason');
  checkChatUsage(r.usage, { ...usageOf(s, 0), completion: limit }, 'response');
  requests(s, 1);
});

check('openai · Chat Completions · streamed · max_tokens (length)', async (t) => {
  const s = await startServer(t, [PLAIN]);
  const limit = truncatedTokens();
  const got = await readChatStream(await client(s).chat.completions.create({
    model, messages: [{ role: 'user', content: QUESTION }], max_tokens: limit, stream: true, stream_options: { include_usage: true },
  }));
  eq(got.content, PARTIAL, 'concatenated delta.content (cut)');
  eq(got.reasoning, REASONING, 'concatenated delta.reasoning');
  eq(got.finishReason, 'length', 'finish_reason');
  checkChatUsage(got.usage, { ...usageOf(s, 0), completion: limit }, 'usage chunk');
  requests(s, 1);
});

function checkIncomplete(r, what) {
  eq(r.status, 'incomplete', `${what}: status`);
  eq(r.incomplete_details, { reason: 'max_output_tokens' }, `${what}: incomplete_details`);
  eq(r.output.map((it) => it.type), ['reasoning', 'message'], `${what}: output item types`);
  eq(reasoningTextOf(r.output[0] ?? {}), REASONING, `${what}: reasoning item content (reasoning_text)`);
  eq(r.output[1]?.status, 'incomplete', `${what}: message item status`);
  eq(r.output_text, PARTIAL, `${what}: output_text (cut)`);
}

check('openai · Responses · plain · max_output_tokens (incomplete)', async (t) => {
  const s = await startServer(t, [PLAIN]);
  const limit = truncatedTokens();
  const r = await client(s).responses.create({ model, input: QUESTION, max_output_tokens: limit });
  checkIncomplete(r, 'response');
  checkResponsesUsage(r.usage, { ...usageOf(s, 0), completion: limit }, 'response');
  requests(s, 1);
});

check('openai · Responses · streamed · max_output_tokens (incomplete)', async (t) => {
  const s = await startServer(t, [PLAIN]);
  const limit = truncatedTokens();
  const stream = client(s).responses.stream({ model, input: QUESTION, max_output_tokens: limit });
  const events = [];
  for await (const e of stream) events.push(e);
  eq(events.at(-1)?.type, 'response.incomplete', 'last event');
  eq(events.map((e) => e.sequence_number), events.map((_, i) => i), 'sequence_number 0, 1, 2, …');
  const text = events.filter((e) => e.type === 'response.output_text.delta').map((e) => e.delta).join('');
  eq(text, PARTIAL, 'concatenated response.output_text.delta (cut)');
  const final = await stream.finalResponse().catch((e) => ({ error: e }));
  ok(!final.error, 'finalResponse() resolves for an incomplete response', final.error?.message);
  if (!final.error) {
    checkIncomplete(final, 'finalResponse()');
    checkResponsesUsage(final.usage, { ...usageOf(s, 0), completion: limit }, 'finalResponse()');
  }
  requests(s, 1);
});

// Two calls in one turn, one after the other's result: the model gets the
// reasoning of both steps back.

check('openai · Chat Completions · plain · two-call tool loop', async (t) => {
  const s = await startServer(t, [CALL, SECOND_CALL, AFTER_BOTH]);
  const c = client(s);
  const messages = [{ role: 'user', content: TWO_CITIES_QUESTION }];
  const argsSeen = [];
  for (let i = 0; i < 2; i++) {
    const r = await c.chat.completions.create({ model, messages, tools: chatTools });
    const m = r.choices[0].message;
    eq(r.choices[0].finish_reason, 'tool_calls', `response ${i}: finish_reason`);
    eq(m.reasoning, [CALL_REASONING, SECOND_CALL_REASONING][i], `response ${i}: message.reasoning`);
    const call = m.tool_calls?.[0];
    if (!call) throw new Error(`response ${i}: no tool call`);
    argsSeen.push(JSON.parse(call.function.arguments));
    messages.push(m, { role: 'tool', tool_call_id: call.id, content: JSON.stringify(TOOL_RESULT) });
  }
  eq(argsSeen, [CALL_ARGS, TOKYO_ARGS], 'the calls\' arguments, parsed');
  const r = await c.chat.completions.create({ model, messages, tools: chatTools });
  eq(r.choices[0].message.content, BOTH_ANSWER, 'last response: message.content');
  eq(r.choices[0].finish_reason, 'stop', 'last response: finish_reason');
  checkTwoCallPrompt(s, 2);
  requests(s, 3);
});

check('openai · Responses · plain · two-call tool loop', async (t) => {
  const s = await startServer(t, [CALL, SECOND_CALL, AFTER_BOTH]);
  const c = client(s);
  const input = [{ role: 'user', content: TWO_CITIES_QUESTION }];
  for (let i = 0; i < 2; i++) {
    const r = await c.responses.create({ model, input, tools: responsesTools });
    eq(r.output.map((it) => it.type), ['reasoning', 'function_call'], `response ${i}: output item types`);
    const call = r.output.find((it) => it.type === 'function_call');
    if (!call) throw new Error(`response ${i}: no function_call`);
    eq(JSON.parse(call.arguments), [CALL_ARGS, TOKYO_ARGS][i], `response ${i}: function_call.arguments, parsed`);
    input.push(...r.output, { type: 'function_call_output', call_id: call.call_id, output: JSON.stringify(TOOL_RESULT) });
  }
  const r = await c.responses.create({ model, input, tools: responsesTools });
  eq(r.output_text, BOTH_ANSWER, 'last response: output_text');
  checkTwoCallPrompt(s, 2);
  requests(s, 3);
});

// A request the server must refuse: the SDK's error carries OpenAI's error
// object.

check('openai · Chat Completions · plain · 400 error (unknown tool_call_id)', async (t) => {
  const s = await startServer(t, [PLAIN]);
  const err = await client(s).chat.completions.create({
    model,
    messages: [{ role: 'user', content: QUESTION }, { role: 'tool', tool_call_id: 'call_nope', content: '{}' }],
  }).then(() => null, (e) => e);
  ok(err instanceof OpenAI.BadRequestError, 'an OpenAI.BadRequestError', err?.constructor?.name ?? err);
  eq(err?.status, 400, 'error.status');
  eq(err?.type, 'invalid_request_error', 'error.type');
  ok(typeof err?.param === 'string' && err.param.startsWith('messages[1]'), 'error.param names messages[1]', err?.param);
  includes(err?.message, 'call_nope', 'error.message');
  requests(s, 0);
});

check('openai · Responses · plain · 400 error (unknown call_id)', async (t) => {
  const s = await startServer(t, [PLAIN]);
  const err = await client(s).responses.create({
    model,
    input: [{ role: 'user', content: QUESTION }, { type: 'function_call_output', call_id: 'call_nope', output: '{}' }],
  }).then(() => null, (e) => e);
  ok(err instanceof OpenAI.BadRequestError, 'an OpenAI.BadRequestError', err?.constructor?.name ?? err);
  eq(err?.status, 400, 'error.status');
  eq(err?.type, 'invalid_request_error', 'error.type');
  ok(typeof err?.param === 'string' && err.param.startsWith('input[1]'), 'error.param names input[1]', err?.param);
  includes(err?.message, 'call_nope', 'error.message');
  requests(s, 0);
});

// With -api-keys: a wrong key is the SDK's AuthenticationError with
// OpenAI's code, and the right one is served.
check('openai · Responses · plain · 401 error (-api-keys, wrong key)', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'clients-keys-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const keys = join(dir, 'api-keys');
  writeFileSync(keys, 'sk-tenant-a-0123456789 a\n', { mode: 0o600 });
  const s = await startServer(t, [PLAIN], { flags: ['-api-keys', keys] });
  const err = await new OpenAI({ baseURL: s.baseURL, apiKey: 'sk-wrong', maxRetries: 0 })
    .responses.create({ model, input: QUESTION }).then(() => null, (e) => e);
  ok(err instanceof OpenAI.AuthenticationError, 'an OpenAI.AuthenticationError', err?.constructor?.name ?? err);
  eq(err?.status, 401, 'error.status');
  eq(err?.code, 'invalid_api_key', 'error.code');
  eq(err?.type, 'invalid_request_error', 'error.type');
  includes(err?.message, 'Incorrect API key provided', 'error.message');
  requests(s, 0);
  const r = await new OpenAI({ baseURL: s.baseURL, apiKey: 'sk-tenant-a-0123456789', maxRetries: 0 })
    .responses.create({ model, input: QUESTION });
  eq(r.output_text, ANSWER, 'with the key: output_text');
  requests(s, 1);
});

// The tool loop of OpenAI's function-calling guide for stored responses:
// the second request names the first with previous_response_id and sends
// only the tool result.
check('openai · Responses · plain · tool loop (previous_response_id)', async (t) => {
  const s = await startServer(t, [CALL, AFTER_TOOL]);
  const c = client(s);
  const r1 = await c.responses.create({ model, input: WEATHER_QUESTION, tools: responsesTools });
  const call = r1.output.find((it) => it.type === 'function_call');
  if (!call) throw new Error('first response: no function_call');
  const r2 = await c.responses.create({
    model, previous_response_id: r1.id, tools: responsesTools,
    input: [{ type: 'function_call_output', call_id: call.call_id, output: JSON.stringify(TOOL_RESULT) }],
  });
  checkResponseOutput(r2, { reasoning: FINAL_REASONING, text: FINAL_ANSWER }, 'second response');
  checkToolLoopPrompt(s, 1);
  requests(s, 2);
});

// Structured output with the SDK's parse helpers: the schema reaches the
// prompt as a response format, and the answer comes back parsed.
check('openai · Chat Completions · plain · parse (json_schema)', async (t) => {
  const s = await startServer(t, [STRUCTURED]);
  const r = await client(s).chat.completions.parse({
    model, messages: [{ role: 'user', content: QUESTION }],
    response_format: { type: 'json_schema', json_schema: { name: 'answer', strict: true, schema: ANSWER_SCHEMA } },
  });
  eq(r.choices[0].message.parsed, JSON_ANSWER, 'message.parsed');
  checkResponseFormatPrompt(s, 0);
  requests(s, 1);
});

check('openai · Responses · plain · parse (text.format json_schema)', async (t) => {
  const s = await startServer(t, [STRUCTURED]);
  const r = await client(s).responses.parse({
    model, input: QUESTION, text: { format: { type: 'json_schema', name: 'answer', strict: true, schema: ANSWER_SCHEMA } },
  });
  eq(r.output_parsed, JSON_ANSWER, 'output_parsed');
  checkResponseFormatPrompt(s, 0);
  requests(s, 1);
});

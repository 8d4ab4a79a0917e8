// LangChain's ChatOpenAI (@langchain/openai) against examples/chatserver:
// Chat Completions (its default) and Responses (useResponsesApi), invoke
// and stream, plain and with a tool loop (bindTools, the call, a
// ToolMessage, the answer).
//
// ChatOpenAI reads a chat message's reasoning from "reasoning_content" only
// (into additional_kwargs.reasoning_content), not from "reasoning", so this
// suite's servers send both (-reasoning-field both) where the chatserver
// has that flag. It sends no reasoning back in a Chat Completions tool loop.
// With Responses it keeps the reasoning item in additional_kwargs.reasoning
// (whole when invoked; built from summary events when streamed), reads text
// into content blocks from summaries only, and sends the response's output
// items back in a tool loop, the reasoning among them.

import { HumanMessage, ToolMessage } from '@langchain/core/messages';
import { ChatOpenAI } from '@langchain/openai';
import {
  check, startServer, serverHas, apiKey, eq, ok, usageOf, requests, checkToolLoopPrompt,
  PLAIN, REASONING, ANSWER, CALL, CALL_REASONING, CALL_ARGS, TOOL_RESULT, AFTER_TOOL, FINAL_REASONING, FINAL_ANSWER,
  QUESTION, WEATHER_QUESTION, WEATHER_PARAMS,
  STRUCTURED, ANSWER_SCHEMA, JSON_ANSWER, checkResponseFormatPrompt,
} from './harness.mjs';

const model = 'gpt-oss-120b';

// The servers of this suite send the reasoning as reasoning_content (too),
// the field LangChain reads; a chatserver without the flag sends only
// "reasoning", and the reasoning checks say so.
const flags = serverHas('reasoning-field') ? ['-reasoning-field', 'both'] : [];
const server = (t, completions) => startServer(t, completions, { flags });

const chat = (s, fields = {}) => new ChatOpenAI({ model, apiKey, configuration: { baseURL: s.baseURL }, maxRetries: 0, ...fields });

const weatherTool = { type: 'function', function: { name: 'get_weather', description: 'Current weather of a city', parameters: WEATHER_PARAMS } };

// call invokes the model, or streams it and concatenates the chunks as
// LangChain's docs do (AIMessageChunk.concat).
async function call(llm, mode, input) {
  if (mode === 'invoke') return llm.invoke(input);
  let acc;
  let chunks = 0;
  for await (const chunk of await llm.stream(input)) {
    chunks++;
    acc = acc ? acc.concat(chunk) : chunk;
  }
  ok(chunks > 1, 'more than one chunk', chunks);
  return acc;
}

function checkUsage(msg, want, what) {
  const u = msg.usage_metadata;
  ok(u, `${what}: usage_metadata present`, u);
  if (!u) return;
  eq(u.input_tokens, want.prompt, `${what}: usage_metadata.input_tokens`);
  eq(u.output_tokens, want.completion, `${what}: usage_metadata.output_tokens`);
  eq(u.total_tokens, want.prompt + want.completion, `${what}: usage_metadata.total_tokens`);
  eq(u.output_token_details?.reasoning, want.reasoning, `${what}: usage_metadata.output_token_details.reasoning`);
}

function checkChatMessage(msg, want, what) {
  eq(msg.text, want.text, `${what}: text`);
  const reasonings = flags.length ? '' : ' (this chatserver has no -reasoning-field flag and sends only "reasoning")';
  eq(msg.additional_kwargs?.reasoning_content, want.reasoning, `${what}: additional_kwargs.reasoning_content${reasonings}`);
  if (want.call) {
    eq(msg.tool_calls?.map((c) => [c.name, c.args]), [['get_weather', CALL_ARGS]], `${what}: tool_calls (name, parsed args)`);
    ok(/^call_/.test(msg.tool_calls?.[0]?.id ?? ''), `${what}: tool_calls[0].id starts with call_`, msg.tool_calls?.[0]?.id);
    eq(msg.invalid_tool_calls ?? [], [], `${what}: invalid_tool_calls`);
  } else {
    eq(msg.tool_calls ?? [], [], `${what}: tool_calls`);
  }
  eq(msg.response_metadata?.finish_reason, want.call ? 'tool_calls' : 'stop', `${what}: response_metadata.finish_reason`);
  checkUsage(msg, want.usage, what);
}

for (const mode of ['invoke', 'stream']) {
  check(`langchain ChatOpenAI · Chat Completions · ${mode} · reasoning`, async (t) => {
    const s = await server(t, [PLAIN]);
    const msg = await call(chat(s), mode, [new HumanMessage(QUESTION)]);
    checkChatMessage(msg, { text: ANSWER, reasoning: REASONING, usage: usageOf(s, 0) }, 'message');
    requests(s, 1);
  });

  check(`langchain ChatOpenAI · Chat Completions · ${mode} · tool loop`, async (t) => {
    const s = await server(t, [CALL, AFTER_TOOL]);
    const llm = chat(s).bindTools([weatherTool]);
    const messages = [new HumanMessage(WEATHER_QUESTION)];
    const m1 = await call(llm, mode, messages);
    checkChatMessage(m1, { text: '', reasoning: CALL_REASONING, call: true, usage: usageOf(s, 0) }, 'first message');
    const tc = m1.tool_calls?.[0];
    messages.push(m1, new ToolMessage({ tool_call_id: tc?.id ?? 'missing', content: JSON.stringify(TOOL_RESULT) }));
    const m2 = await call(llm, mode, messages);
    checkChatMessage(m2, { text: FINAL_ANSWER, reasoning: FINAL_REASONING, usage: usageOf(s, 1) }, 'second message');
    // ChatOpenAI sends no reasoning back (its converter drops it).
    checkToolLoopPrompt(s, 1, { reasoning: false });
    requests(s, 2);
  });
}

// Responses (useResponsesApi: true).

function reasoningItemText(msg) {
  const item = msg.additional_kwargs?.reasoning;
  return (item?.content ?? []).filter((p) => p.type === 'reasoning_text').map((p) => p.text).join('');
}

function checkResponsesMessage(msg, want, what, mode) {
  eq(msg.text, want.text, `${what}: text`);
  const item = msg.additional_kwargs?.reasoning;
  ok(/^rs_/.test(item?.id ?? ''), `${what}: additional_kwargs.reasoning.id (the reasoning item's) starts with rs_`, item);
  // invoke keeps the item whole, with its reasoning_text content; stream
  // builds it from summary events only, so the text is checked when invoked.
  if (mode === 'invoke') eq(reasoningItemText(msg), want.reasoning, `${what}: additional_kwargs.reasoning.content (reasoning_text)`);
  if (want.call) {
    eq(msg.tool_calls?.map((c) => [c.name, c.args]), [['get_weather', CALL_ARGS]], `${what}: tool_calls (name, parsed args)`);
    ok(/^call_/.test(msg.tool_calls?.[0]?.id ?? ''), `${what}: tool_calls[0].id starts with call_`, msg.tool_calls?.[0]?.id);
  } else {
    eq(msg.tool_calls ?? [], [], `${what}: tool_calls`);
  }
  eq(msg.response_metadata?.status, 'completed', `${what}: response_metadata.status`);
  checkUsage(msg, want.usage, what);
}

for (const mode of ['invoke', 'stream']) {
  check(`langchain ChatOpenAI · Responses · ${mode} · reasoning`, async (t) => {
    const s = await server(t, [PLAIN]);
    const msg = await call(chat(s, { useResponsesApi: true }), mode, [new HumanMessage(QUESTION)]);
    checkResponsesMessage(msg, { text: ANSWER, reasoning: REASONING, usage: usageOf(s, 0) }, 'message', mode);
    requests(s, 1);
  });

  const stateless = [' (zdrEnabled: store false, include encrypted reasoning)', { zdrEnabled: true }, { include: ['reasoning.encrypted_content'] }];
  for (const [variant, fields, callOptions] of [['', {}, {}], stateless]) {
    check(`langchain ChatOpenAI · Responses · ${mode} · tool loop${variant}`, async (t) => {
      const s = await server(t, [CALL, AFTER_TOOL]);
      const llm = chat(s, { useResponsesApi: true, ...fields }).bindTools([weatherTool], callOptions);
      const messages = [new HumanMessage(WEATHER_QUESTION)];
      const m1 = await call(llm, mode, messages);
      checkResponsesMessage(m1, { text: '', reasoning: CALL_REASONING, call: true, usage: usageOf(s, 0) }, 'first message', mode);
      if (callOptions.include) {
        const enc = (m1.response_metadata?.output ?? []).find((it) => it.type === 'reasoning')?.encrypted_content;
        ok(typeof enc === 'string' && enc.length > 0, "first message: response_metadata.output's reasoning item has encrypted_content", enc);
      }
      const tc = m1.tool_calls?.[0];
      messages.push(m1, new ToolMessage({ tool_call_id: tc?.id ?? 'missing', content: JSON.stringify(TOOL_RESULT) }));
      const m2 = await call(llm, mode, messages);
      checkResponsesMessage(m2, { text: FINAL_ANSWER, reasoning: FINAL_REASONING, usage: usageOf(s, 1) }, 'second message', mode);
      checkToolLoopPrompt(s, 1);
      requests(s, 2);
    });
  }
}



// withStructuredOutput with its default method, a json_schema response
// format on Chat Completions.
check('langchain ChatOpenAI · Chat Completions · invoke · withStructuredOutput', async (t) => {
  const s = await server(t, [STRUCTURED]);
  const out = await chat(s).withStructuredOutput(ANSWER_SCHEMA, { name: 'answer' }).invoke([new HumanMessage(QUESTION)]);
  eq(out, JSON_ANSWER, 'the structured output');
  checkResponseFormatPrompt(s, 0);
  requests(s, 1);
});

// tests/provider/sdk_conformance.mjs: the official SDKs for Node, `openai` and
// `@anthropic-ai/sdk` (pinned in tests/peers/sdk/package.json), drive `parley fake-server` the
// way a user's program does, and every case checks what the SDK parsed against the script the
// server answered from: texts, tool calls, refusals, reasoning, usage, request ids, errors and
// how many attempts the SDK's retries made (counted from the server's --log).
//
//   node sdk_conformance.mjs PARLEY_PROGRAM NODE_PEERS_DIR
//
// The SDKs are loaded from NODE_PEERS_DIR/sdk/node_modules (./dev.sh installs them into
// .cache/node-peers/sdk); a missing SDK is a failure. One fake server per case, started with that case's
// script. Prints one line per case; exits 1 when a case fails.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';

const program = process.argv[2];
const peers = process.argv[3];
if (!program || !peers) {
    console.error('usage: node sdk_conformance.mjs PARLEY_PROGRAM NODE_PEERS_DIR');
    process.exit(2);
}
let require;
let OpenAI, Anthropic, z, zodResponseFormat;
try {
    require = createRequire(join(peers, 'sdk', 'package.json'));
    OpenAI = require('openai').default ?? require('openai');
    Anthropic = require('@anthropic-ai/sdk').default ?? require('@anthropic-ai/sdk');
    ({ z } = require('zod'));
    ({ zodResponseFormat } = require('openai/helpers/zod'));
} catch (e) {
    console.error(`error: the official SDKs are not installed in ${join(peers, 'sdk')} (./dev.sh installs them ` +
                  `from tests/peers/sdk/package.json): ${e.message}`);
    process.exit(1);
}
const openaiVersion = require('openai/version').VERSION;
const anthropicVersion = require('@anthropic-ai/sdk/version').VERSION;

const work = mkdtempSync(join(tmpdir(), 'parley-sdk-'));

class Mismatch extends Error {}
function expect(condition, what) {
    if (!condition) throw new Mismatch(what);
}
function equal(actual, expected, what) {
    if (!isDeepStrictEqual(actual, expected))
        throw new Mismatch(`${what}: expected ${JSON.stringify(expected)}, found ${JSON.stringify(actual)}`);
}

/// Starts `parley fake-server --log` with this script (and options); resolves to
/// { base, requests(), stop() } once it says where it listens.
function serve(script, args = []) {
    const file = join(work, `script-${Math.random().toString(36).slice(2)}.json`);
    writeFileSync(file, JSON.stringify(script));
    const child = spawn(program, ['fake-server', '--log', '--script', file, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let log = '';
    child.stderr.on('data', (d) => (log += d));
    return new Promise((resolve, reject) => {
        let out = '';
        const timer = setTimeout(() => reject(new Error('the fake server did not start')), 10000);
        child.on('exit', (code) => reject(new Error(`the fake server exited with ${code}: ${log}`)));
        child.stdout.on('data', (d) => {
            out += d;
            const m = out.match(/listening on (http:\/\/[^\s]+)/);
            if (!m) return;
            clearTimeout(timer);
            child.removeAllListeners('exit');
            resolve({
                base: m[1],
                // the requests the server answered: "METHOD TARGET -> STATUS" (its log line is
                // written before the reply, but its pipe is read apart: given a moment to arrive)
                requests: async () => {
                    await new Promise((done) => setTimeout(done, 200));
                    return log.split('\n').filter((l) => / -> /.test(l));
                },
                stop: () =>
                    new Promise((done) => {
                        child.on('exit', () => done());
                        child.kill('SIGTERM');
                    }),
            });
        });
    });
}

function openai(server, options = {}) {
    return new OpenAI({ apiKey: 'sk-test-key', baseURL: `${server.base}/v1`, maxRetries: 2, timeout: 20000, ...options });
}
function anthropic(server, options = {}) {
    return new Anthropic({ apiKey: 'sk-ant-test', baseURL: server.base, maxRetries: 2, timeout: 20000, ...options });
}
const ask = [{ role: 'user', content: 'Say hello' }];
const weatherTool = {
    type: 'function',
    function: {
        name: 'get_weather',
        description: 'The weather of a city',
        parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    },
};

const cases = [];
function test(name, script, run, args) {
    cases.push({ name, script, run, args });
}

// ---- OpenAI chat completions ----------------------------------------------------------------

test('chat.completions.create: text, finish reason, usage details, request id',
    { steps: [{ reply: { text: 'Hello from the script!', usage: { prompt: 11, completion: 5, cached: 3, reasoning: 2 } } }] },
    async (server) => {
        const { data, response } = await openai(server).chat.completions.create({ model: 'gpt-4o-mini', messages: ask }).withResponse();
        equal(data.object, 'chat.completion', 'object');
        equal(data.model, 'gpt-4o-mini', 'model');
        equal(data.choices.length, 1, 'choices');
        equal(data.choices[0].message.role, 'assistant', 'role');
        equal(data.choices[0].message.content, 'Hello from the script!', 'content');
        equal(data.choices[0].message.refusal, null, 'refusal');
        equal(data.choices[0].finish_reason, 'stop', 'finish_reason');
        equal(data.usage.prompt_tokens, 11, 'prompt_tokens');
        equal(data.usage.completion_tokens, 5, 'completion_tokens');
        equal(data.usage.total_tokens, 16, 'total_tokens');
        equal(data.usage.prompt_tokens_details.cached_tokens, 3, 'cached_tokens');
        equal(data.usage.completion_tokens_details.reasoning_tokens, 2, 'reasoning_tokens');
        expect(/^req_fake_/.test(data._request_id), `_request_id ${data._request_id}`);
        equal(response.headers.get('x-request-id'), data._request_id, 'x-request-id');
    });

test('chat.completions.create: a reply that scripts only its finish reason takes the default text',
    { steps: [{ reply: { finish: 'length' } }] },
    async (server) => {
        const c = await openai(server).chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'echo me' }] });
        equal(c.choices[0].message.content, 'echo me', 'content');
        equal(c.choices[0].finish_reason, 'length', 'finish_reason');
    });

test('chat.completions.create streamed with include_usage: deltas, finish, the usage chunk',
    { steps: [{ reply: { text: 'Streaming words one by one.', delta_size: 5, usage: { prompt: 9, completion: 6 } } }] },
    async (server) => {
        const stream = await openai(server).chat.completions.create({
            model: 'gpt-4o-mini', messages: ask, stream: true, stream_options: { include_usage: true } });
        let text = '';
        let finish = null;
        let usage = null;
        let chunks = 0;
        for await (const chunk of stream) {
            ++chunks;
            equal(chunk.object, 'chat.completion.chunk', 'object');
            for (const choice of chunk.choices) {
                text += choice.delta.content ?? '';
                if (choice.finish_reason) finish = choice.finish_reason;
            }
            if (chunk.usage) usage = chunk.usage;
        }
        equal(text, 'Streaming words one by one.', 'text');
        equal(finish, 'stop', 'finish_reason');
        expect(chunks > 6, `chunks: ${chunks}`);
        equal([usage.prompt_tokens, usage.completion_tokens, usage.total_tokens], [9, 6, 15], 'usage');
    });

test('chat.completions.stream(): content events and finalChatCompletion()',
    { steps: [{ reply: { text: 'Final words.', delta_size: 3 } }] },
    async (server) => {
        const runner = openai(server).chat.completions.stream({ model: 'gpt-4o-mini', messages: ask });
        let deltas = '';
        runner.on('content', (delta) => (deltas += delta));
        const final = await runner.finalChatCompletion();
        equal(deltas, 'Final words.', 'content events');
        equal(final.choices[0].message.content, 'Final words.', 'final content');
        equal(final.choices[0].finish_reason, 'stop', 'finish_reason');
        equal(await runner.finalContent(), 'Final words.', 'finalContent');
    });

const parallelCalls = [
    { id: 'call_oslo', name: 'get_weather', arguments: '{"city":"Oslo"}' },
    { id: 'call_rome', name: 'get_weather', arguments: '{"city":"Rome"}' },
];
function checkCalls(calls, what) {
    equal(calls.map((c) => [c.id, c.type, c.function.name, c.function.arguments]),
        parallelCalls.map((c) => [c.id, 'function', c.name, c.arguments]), what);
}

test('chat.completions.create: parallel tool calls',
    { steps: [{ reply: { tool_calls: parallelCalls } }] },
    async (server) => {
        const c = await openai(server).chat.completions.create({
            model: 'gpt-4o', messages: ask, tools: [weatherTool], parallel_tool_calls: true });
        checkCalls(c.choices[0].message.tool_calls, 'tool_calls');
        equal(c.choices[0].message.content, null, 'content');
        equal(c.choices[0].finish_reason, 'tool_calls', 'finish_reason');
    });

test('chat.completions.stream(): parallel tool calls assembled from their deltas',
    { steps: [{ reply: { tool_calls: parallelCalls, delta_size: 4 } }] },
    async (server) => {
        const runner = openai(server).chat.completions.stream({ model: 'gpt-4o', messages: ask, tools: [weatherTool] });
        const final = await runner.finalChatCompletion();
        checkCalls(final.choices[0].message.tool_calls, 'tool_calls');
        equal(final.choices[0].finish_reason, 'tool_calls', 'finish_reason');
    });

test('chat.completions.runTools(): the function runs with the parsed arguments, then the final answer',
    { steps: [{ reply: { tool_calls: [{ id: 'call_1', name: 'get_weather', arguments: '{"city":"Oslo"}' }] } },
              { reply: { text: 'It is sunny in Oslo.' } }] },
    async (server) => {
        const calls = [];
        const runner = openai(server).chat.completions.runTools({
            model: 'gpt-4o',
            messages: ask,
            tools: [{
                type: 'function',
                function: {
                    ...weatherTool.function,
                    parse: JSON.parse,
                    function: async (args) => {
                        calls.push(args);
                        return { city: args.city, sky: 'sunny' };
                    },
                },
            }],
        });
        equal(await runner.finalContent(), 'It is sunny in Oslo.', 'finalContent');
        equal(calls, [{ city: 'Oslo' }], 'the function calls');
        const tool = runner.messages.find((m) => m.role === 'tool');
        equal(tool?.tool_call_id, 'call_1', 'the tool message');
        equal(JSON.parse(tool.content), { city: 'Oslo', sky: 'sunny' }, 'the tool result');
        equal((await server.requests()).length, 2, 'requests');
    });

test('chat.completions.parse() with a zod json_schema response format',
    { steps: [{ reply: { text: '{"city":"Oslo","temperature":12.5,"tags":["cold","clear"]}' } }] },
    async (server) => {
        const Weather = z.object({ city: z.string(), temperature: z.number(), tags: z.array(z.string()) });
        const c = await openai(server).chat.completions.parse({
            model: 'gpt-4o-2024-08-06', messages: ask, response_format: zodResponseFormat(Weather, 'weather') });
        equal(c.choices[0].message.parsed, { city: 'Oslo', temperature: 12.5, tags: ['cold', 'clear'] }, 'parsed');
    });

test('chat.completions.create: a refusal, not streamed and streamed',
    { steps: [{ reply: { refusal: "I'm sorry, I can't help with that." } },
              { reply: { refusal: "I'm sorry, I can't help with that.", delta_size: 6 } }] },
    async (server) => {
        const client = openai(server);
        const c = await client.chat.completions.create({ model: 'gpt-4o', messages: ask });
        equal(c.choices[0].message.refusal, "I'm sorry, I can't help with that.", 'refusal');
        equal(c.choices[0].message.content, null, 'content');
        const final = await client.chat.completions.stream({ model: 'gpt-4o', messages: ask }).finalChatCompletion();
        equal(final.choices[0].message.refusal, "I'm sorry, I can't help with that.", 'streamed refusal');
        equal(final.choices[0].message.content, null, 'streamed content');
    });

test('chat.completions.create: n: 2, scripted choices and the default reply',
    { steps: [{ reply: { choices: [{ text: 'first' }, { text: 'second', finish: 'length' }] } }] },
    async (server) => {
        const client = openai(server);
        const c = await client.chat.completions.create({ model: 'm', messages: ask, n: 2 });
        equal(c.choices.map((x) => [x.index, x.message.content, x.finish_reason]), [[0, 'first', 'stop'], [1, 'second', 'length']], 'choices');
        const d = await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'twice' }], n: 2 });
        equal(d.choices.map((x) => x.message.content), ['twice', 'twice'], 'default choices');
        const s = await client.chat.completions.stream({ model: 'm', messages: [{ role: 'user', content: 'both' }], n: 2 }).finalChatCompletion();
        equal(s.choices.map((x) => x.message.content), ['both', 'both'], 'streamed choices');
    });

test('chat.completions.create: reasoning_content of OpenAI-compatible servers, kept by the SDK',
    { steps: [{ reply: { text: '42', reasoning: 'Six times seven.' } }] },
    async (server) => {
        const c = await openai(server).chat.completions.create({ model: 'deepseek-reasoner', messages: ask });
        equal(c.choices[0].message.content, '42', 'content');
        equal(c.choices[0].message.reasoning_content, 'Six times seven.', 'reasoning_content');
    });

test('embeddings.create: the scripted vectors (base64, as the SDK asks by default)',
    { steps: [{ route: 'embeddings', reply: { embeddings: [[0.25, -0.5, 0.125], [1, 0, -1]] } }] },
    async (server) => {
        const e = await openai(server).embeddings.create({ model: 'text-embedding-3-small', input: ['a', 'b'] });
        equal(e.data.map((d) => d.embedding), [[0.25, -0.5, 0.125], [1, 0, -1]], 'vectors');
        equal(e.data.map((d) => d.index), [0, 1], 'indexes');
        equal(e.model, 'text-embedding-3-small', 'model');
    });

test('models.list: the OpenAI shape',
    { steps: [] },
    async (server) => {
        const ids = [];
        for await (const m of openai(server).models.list()) ids.push(m.id);
        expect(ids.includes('gpt-4o-mini'), `ids ${ids}`);
    });

test('errors: 401 from --api-key is not retried; its type, code and request id',
    { steps: [] },
    async (server) => {
        try {
            await openai(server, { apiKey: 'sk-wrong-key' }).chat.completions.create({ model: 'm', messages: ask });
            throw new Mismatch('no error');
        } catch (e) {
            if (e instanceof Mismatch) throw e;
            expect(e instanceof OpenAI.AuthenticationError, `error class ${e.constructor.name}`);
            equal(e.status, 401, 'status');
            equal(e.type, 'invalid_request_error', 'type');
            equal(e.code, 'invalid_api_key', 'code');
            expect(/^req_fake_/.test(e.requestID), `requestID ${e.requestID}`);
        }
        equal((await server.requests()).length, 1, 'requests');
    }, ['--api-key', 'sk-test-key']);

test('errors: 429 with retry-after is retried until it succeeds',
    { steps: [{ status: 429, headers: { 'retry-after': '0' } }, { status: 429, headers: { 'retry-after': '0' } },
              { reply: { text: 'third time' } }] },
    async (server) => {
        const c = await openai(server).chat.completions.create({ model: 'm', messages: ask });
        equal(c.choices[0].message.content, 'third time', 'content');
        equal((await server.requests()).map((r) => r.split(' -> ')[1]), ['429', '429', '200'], 'attempts');
    });

test('errors: 429 past maxRetries: RateLimitError with the real body (type requests, code rate_limit_exceeded)',
    { steps: [{ status: 429, headers: { 'retry-after': '0' } }, { status: 429, headers: { 'retry-after': '0' } },
              { status: 429, headers: { 'retry-after': '0' } }] },
    async (server) => {
        try {
            await openai(server).chat.completions.create({ model: 'm', messages: ask });
            throw new Mismatch('no error');
        } catch (e) {
            if (e instanceof Mismatch) throw e;
            expect(e instanceof OpenAI.RateLimitError, `error class ${e.constructor.name}`);
            equal([e.status, e.type, e.code], [429, 'requests', 'rate_limit_exceeded'], 'status, type, code');
            expect(/^req_fake_/.test(e.requestID), `requestID ${e.requestID}`);
        }
        equal((await server.requests()).length, 3, 'requests (1 + maxRetries)');
    });

test('errors: 500 is retried',
    { steps: [{ status: 500 }, { reply: { text: 'recovered' } }] },
    async (server) => {
        const c = await openai(server).chat.completions.create({ model: 'm', messages: ask });
        equal(c.choices[0].message.content, 'recovered', 'content');
        equal((await server.requests()).length, 2, 'requests');
        try {
            await openai(server, { maxRetries: 0 }).chat.completions.create({ model: 'm', messages: ask });
        } catch (e) {
            throw new Mismatch(`the default reply failed: ${e.message}`);
        }
    });

test('errors: a 500 not retried (maxRetries 0) is InternalServerError with type server_error',
    { steps: [{ status: 500 }] },
    async (server) => {
        try {
            await openai(server, { maxRetries: 0 }).chat.completions.create({ model: 'm', messages: ask });
            throw new Mismatch('no error');
        } catch (e) {
            if (e instanceof Mismatch) throw e;
            expect(e instanceof OpenAI.InternalServerError, `error class ${e.constructor.name}`);
            equal([e.status, e.type], [500, 'server_error'], 'status, type');
        }
    });

test('errors: 404 on a path that is not a route carries a request id',
    { steps: [] },
    async (server) => {
        try {
            await openai(server).post('/nowhere', { body: {} });
            throw new Mismatch('no error');
        } catch (e) {
            if (e instanceof Mismatch) throw e;
            expect(e instanceof OpenAI.NotFoundError, `error class ${e.constructor.name}`);
            expect(/^req_fake_/.test(e.requestID), `requestID ${e.requestID}`);
        }
    });

// ---- OpenAI Responses API -------------------------------------------------------------------

const responseTool = { type: 'function', name: 'get_weather', description: 'The weather of a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false },
    strict: true };

test('responses.create: text, usage, output_text',
    { steps: [{ reply: { text: 'Hello from the Responses API.', usage: { prompt: 20, completion: 7, cached: 4, reasoning: 3 } } }] },
    async (server) => {
        const r = await openai(server).responses.create({ model: 'gpt-5', input: 'Say hello', instructions: 'Be brief.' });
        equal(r.object, 'response', 'object');
        equal(r.status, 'completed', 'status');
        equal(r.output_text, 'Hello from the Responses API.', 'output_text');
        equal(r.output.filter((i) => i.type === 'message').length, 1, 'message items');
        equal([r.usage.input_tokens, r.usage.output_tokens, r.usage.total_tokens], [20, 7, 27], 'usage');
        equal(r.usage.input_tokens_details.cached_tokens, 4, 'cached_tokens');
        equal(r.usage.output_tokens_details.reasoning_tokens, 3, 'reasoning_tokens');
        expect(/^req_fake_/.test(r._request_id), `_request_id ${r._request_id}`);
    });

test('responses.create: function tools (strict), not streamed',
    { steps: [{ reply: { tool_calls: parallelCalls } }] },
    async (server) => {
        const r = await openai(server).responses.create({ model: 'gpt-5', input: 'Weather?', tools: [responseTool], tool_choice: 'required' });
        const calls = r.output.filter((i) => i.type === 'function_call');
        equal(calls.map((c) => [c.call_id, c.name, c.arguments]), parallelCalls.map((c) => [c.id, c.name, c.arguments]), 'calls');
    });

test('responses.create streamed: the semantic events and response.completed',
    { steps: [{ reply: { text: 'Streamed through events.', delta_size: 5, usage: { prompt: 8, completion: 4 } } }] },
    async (server) => {
        const stream = await openai(server).responses.create({ model: 'gpt-5', input: 'Say hello', stream: true });
        let text = '';
        let completed = null;
        const types = new Set();
        let last = -1;
        for await (const event of stream) {
            types.add(event.type);
            expect(event.sequence_number > last, 'sequence numbers increase');
            last = event.sequence_number;
            if (event.type === 'response.output_text.delta') text += event.delta;
            if (event.type === 'response.completed') completed = event.response;
        }
        equal(text, 'Streamed through events.', 'deltas');
        for (const t of ['response.created', 'response.in_progress', 'response.output_item.added', 'response.content_part.added',
                         'response.output_text.done', 'response.output_item.done', 'response.completed'])
            expect(types.has(t), `no ${t} event`);
        equal(completed.status, 'completed', 'status');
        equal(completed.output_text ?? completed.output[0].content[0].text, 'Streamed through events.', 'completed text');
        equal([completed.usage.input_tokens, completed.usage.output_tokens], [8, 4], 'usage');
    });

test('responses.stream(): function calls, reasoning summary and finalResponse()',
    { steps: [{ reply: { reasoning: 'Look it up first.', tool_calls: [parallelCalls[0]], delta_size: 4 } }] },
    async (server) => {
        const stream = openai(server).responses.stream({ model: 'gpt-5', input: 'Weather?', tools: [responseTool],
                                                         reasoning: { effort: 'low', summary: 'auto' } });
        let args = '';
        stream.on('response.function_call_arguments.delta', (e) => (args += e.delta));
        const r = await stream.finalResponse();
        equal(args, parallelCalls[0].arguments, 'argument deltas');
        const calls = r.output.filter((i) => i.type === 'function_call');
        equal(calls.map((c) => [c.call_id, c.name, c.arguments]), [[parallelCalls[0].id, 'get_weather', parallelCalls[0].arguments]], 'calls');
        const reasoning = r.output.filter((i) => i.type === 'reasoning');
        equal(reasoning.map((i) => i.summary.map((s) => s.text)), [['Look it up first.']], 'reasoning summary');
    });

test('responses.create: store false asks for encrypted reasoning, which comes back',
    { steps: [{ reply: { text: 'ok', reasoning: 'Think.' } }] },
    async (server) => {
        const r = await openai(server).responses.create({ model: 'gpt-5', input: 'x', store: false, include: ['reasoning.encrypted_content'] });
        const item = r.output.find((i) => i.type === 'reasoning');
        expect(typeof item?.encrypted_content === 'string' && item.encrypted_content.length > 0, 'encrypted_content');
        equal(r.output_text, 'ok', 'output_text');
    });

// ---- Anthropic Messages -----------------------------------------------------------------------

test('messages.create: text, stop reason, usage with the cache fields, request id',
    { steps: [{ reply: { text: 'Hello from Claude.', usage: { prompt: 100, completion: 9, cached: 30, cache_write: 20 } } }] },
    async (server) => {
        const { data: m, response } = await anthropic(server).messages.create({
            model: 'claude-test-model', max_tokens: 256, messages: ask }).withResponse();
        equal(m.type, 'message', 'type');
        equal(m.role, 'assistant', 'role');
        equal(m.content, [{ type: 'text', text: 'Hello from Claude.' }], 'content');
        equal(m.stop_reason, 'end_turn', 'stop_reason');
        equal([m.usage.input_tokens, m.usage.cache_read_input_tokens, m.usage.cache_creation_input_tokens, m.usage.output_tokens],
            [50, 30, 20, 9], 'usage');
        equal(m.usage.service_tier, 'standard', 'service_tier');
        expect(/^req_fake_/.test(m._request_id), `_request_id ${m._request_id}`);
        equal(response.headers.get('request-id'), m._request_id, 'request-id');
    });

test('messages.stream(): text events and finalMessage()',
    { steps: [{ reply: { text: 'Streamed from Claude.', delta_size: 4 } }] },
    async (server) => {
        const stream = anthropic(server).messages.stream({ model: 'claude-test-model', max_tokens: 256, messages: ask });
        let text = '';
        stream.on('text', (t) => (text += t));
        const m = await stream.finalMessage();
        equal(text, 'Streamed from Claude.', 'text events');
        equal(m.content, [{ type: 'text', text: 'Streamed from Claude.' }], 'content');
        equal(m.stop_reason, 'end_turn', 'stop_reason');
    });

test('messages.create and messages.stream(): tool use',
    { steps: [{ reply: { text: 'Let me check.', tool_calls: [{ id: 'toolu_1', name: 'get_weather', arguments: '{"city":"Oslo"}' }] } },
              { reply: { tool_calls: [{ id: 'toolu_2', name: 'get_weather', arguments: '{"city":"Rome","unit":"c"}' }], delta_size: 3 } }] },
    async (server) => {
        const client = anthropic(server);
        const tools = [{ name: 'get_weather', description: 'The weather', input_schema: weatherTool.function.parameters }];
        const m = await client.messages.create({ model: 'claude-test-model', max_tokens: 256, messages: ask, tools });
        equal(m.content, [{ type: 'text', text: 'Let me check.' },
                          { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Oslo' } }], 'content');
        equal(m.stop_reason, 'tool_use', 'stop_reason');
        const s = await client.messages.stream({ model: 'claude-test-model', max_tokens: 256, messages: ask, tools }).finalMessage();
        equal(s.content, [{ type: 'tool_use', id: 'toolu_2', name: 'get_weather', input: { city: 'Rome', unit: 'c' } }], 'streamed content');
    });

test('messages.stream(): a thinking block with its signature, then the text',
    { steps: [{ reply: { text: 'It is 42.', reasoning: 'Six times seven is 42.', delta_size: 5 } }] },
    async (server) => {
        const stream = anthropic(server).messages.stream({ model: 'claude-test-model', max_tokens: 4096, messages: ask,
                                                           thinking: { type: 'enabled', budget_tokens: 1024 } });
        let thinking = '';
        stream.on('thinking', (t) => (thinking += t));
        const m = await stream.finalMessage();
        equal(thinking, 'Six times seven is 42.', 'thinking events');
        equal(m.content[0].type, 'thinking', 'first block');
        equal(m.content[0].thinking, 'Six times seven is 42.', 'thinking');
        expect(typeof m.content[0].signature === 'string' && m.content[0].signature.length > 0, 'signature');
        equal(m.content[1], { type: 'text', text: 'It is 42.' }, 'text block');
    });

test('errors: Anthropic 429 with retry-after is retried',
    { steps: [{ route: 'anthropic', status: 429, headers: { 'retry-after': '0' } }, { reply: { text: 'after the limit' } }] },
    async (server) => {
        const m = await anthropic(server).messages.create({ model: 'claude-test-model', max_tokens: 64, messages: ask });
        equal(m.content[0].text, 'after the limit', 'text');
        equal((await server.requests()).map((r) => r.split(' -> ')[1]), ['429', '200'], 'attempts');
    });

test('errors: Anthropic 529 is overloaded_error "Overloaded", with the request id in the body',
    { steps: [{ status: 529 }] },
    async (server) => {
        try {
            await anthropic(server, { maxRetries: 0 }).messages.create({ model: 'claude-test-model', max_tokens: 64, messages: ask });
            throw new Mismatch('no error');
        } catch (e) {
            if (e instanceof Mismatch) throw e;
            equal(e.status, 529, 'status');
            equal(e.error?.error?.type, 'overloaded_error', 'type');
            equal(e.error?.error?.message, 'Overloaded', 'message');
            expect(/^req_fake_/.test(e.requestID), `requestID ${e.requestID}`);
            equal(e.error?.request_id, e.requestID, 'request_id in the body');
        }
    });

test('errors: Anthropic 529 is retried',
    { steps: [{ status: 529 }, { reply: { text: 'back' } }] },
    async (server) => {
        const m = await anthropic(server).messages.create({ model: 'claude-test-model', max_tokens: 64, messages: ask });
        equal(m.content[0].text, 'back', 'text');
        equal((await server.requests()).length, 2, 'requests');
    });

test('models.list and messages.countTokens: the Anthropic shapes',
    { steps: [] },
    async (server) => {
        const client = anthropic(server);
        const models = [];
        for await (const m of client.models.list()) models.push(m);
        expect(models.length > 0 && models.every((m) => m.type === 'model' && typeof m.display_name === 'string'), 'models');
        const count = await client.messages.countTokens({ model: 'claude-test-model', messages: ask });
        expect(Number.isInteger(count.input_tokens) && count.input_tokens > 0, `input_tokens ${count.input_tokens}`);
    });

// ---- run -------------------------------------------------------------------------------------

console.log(`openai ${openaiVersion}, @anthropic-ai/sdk ${anthropicVersion}, Node ${process.version}`);
let failed = 0;
for (const c of cases) {
    let server;
    try {
        server = await serve(c.script, c.args);
        await c.run(server);
        console.log(`ok   ${c.name}`);
    } catch (e) {
        ++failed;
        console.log(`FAIL ${c.name}: ${e instanceof Mismatch ? e.message : e.stack ?? e}`);
    } finally {
        if (server) await server.stop();
    }
}
rmSync(work, { recursive: true, force: true });
console.log(`${cases.length - failed} of ${cases.length} cases passed`);
process.exit(failed ? 1 : 0);

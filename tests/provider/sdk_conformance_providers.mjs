// tests/provider/sdk_conformance_providers.mjs: the official clients of Ollama's native API (the
// `ollama` npm package) and of Azure OpenAI (the `openai` package's AzureOpenAI), pinned in
// tests/peers/sdk/package.json, drive `parley fake-server` the way a user's program does, and
// every case checks that the server took what the client sent (the request's target and status,
// and its body from the server's --record file) and that what the client parsed is what the
// script answered: texts, JSON lines and server-sent events, thinking, tool calls, structured
// output, embeddings, the models list, error bodies and an error line in a stream; Azure's
// deployment paths, api-version and api-key, its chunks and the content filter.
//
//   node sdk_conformance_providers.mjs PARLEY_PROGRAM NODE_PEERS_DIR
//
// The packages are loaded from NODE_PEERS_DIR/sdk/node_modules (./dev.sh installs them into
// .cache/node-peers/sdk); a missing package is a failure. One fake server per case. Prints one
// line per case; exits 1 when a case fails.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';

const program = process.argv[2];
const peers = process.argv[3];
if (!program || !peers) {
    console.error('usage: node sdk_conformance_providers.mjs PARLEY_PROGRAM NODE_PEERS_DIR');
    process.exit(2);
}
let require, Ollama, AzureOpenAI, OpenAIErrors, ollamaVersion, openaiVersion;
try {
    require = createRequire(join(peers, 'sdk', 'package.json'));
    ({ Ollama } = require('ollama'));
    const openai = require('openai');
    AzureOpenAI = openai.AzureOpenAI;
    OpenAIErrors = openai;
    openaiVersion = require('openai/version').VERSION;
    ollamaVersion = JSON.parse(readFileSync(require.resolve('ollama/package.json'), 'utf8')).version;
} catch (e) {
    console.error(`error: the ollama and openai packages are not installed in ${join(peers, 'sdk')} (./dev.sh installs ` +
                  `them from tests/peers/sdk/package.json): ${e.message}`);
    process.exit(1);
}

const work = mkdtempSync(join(tmpdir(), 'parley-sdk-providers-'));

class Mismatch extends Error {}
function expect(condition, what) {
    if (!condition) throw new Mismatch(what);
}
function equal(actual, expected, what) {
    if (!isDeepStrictEqual(actual, expected))
        throw new Mismatch(`${what}: expected ${JSON.stringify(expected)}, found ${JSON.stringify(actual)}`);
}
async function rejects(promise, what) {
    try {
        await promise;
    } catch (e) {
        return e;
    }
    throw new Mismatch(`${what}: no error`);
}

/// Starts `parley fake-server --log --record FILE` with this script (and options); resolves to
/// { base, requests(), bodies(), stop() } once it says where it listens.
function serve(script, args = []) {
    const id = Math.random().toString(36).slice(2);
    const file = join(work, `script-${id}.json`);
    const record = join(work, `record-${id}.jsonl`);
    writeFileSync(file, JSON.stringify(script));
    const child = spawn(program, ['fake-server', '--log', '--script', file, '--record', record, ...args],
                        { stdio: ['ignore', 'pipe', 'pipe'] });
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
            const settle = () => new Promise((done) => setTimeout(done, 200));
            resolve({
                base: m[1],
                // the requests the server answered: "METHOD TARGET -> STATUS"
                requests: async () => {
                    await settle();
                    return log.split('\n').filter((l) => / -> /.test(l));
                },
                // the bodies of the requests, parsed
                bodies: async () => {
                    await settle();
                    return readFileSync(record, 'utf8').split('\n').filter((l) => l).map((l) => JSON.parse(JSON.parse(l).body));
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

const cases = [];
function test(name, script, run, args) {
    cases.push({ name, script, run, args });
}

// ---- Ollama ----------------------------------------------------------------------------------

const MODEL = 'llama3.2';
const ollama = (server) => new Ollama({ host: server.base });
const weather = {
    type: 'function',
    function: {
        name: 'get_weather', description: 'The weather of a city',
        parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    },
};

test('ollama chat: a whole reply (stream false): content, done_reason, counts, model, created_at',
    { steps: [{ reply: { text: 'Hello from the script!', usage: { prompt: 11, completion: 9 } } }] },
    async (server) => {
        const r = await ollama(server).chat({ model: MODEL, messages: [{ role: 'user', content: 'Say hello' }] });
        equal(r.message, { role: 'assistant', content: 'Hello from the script!' }, 'message');
        equal(r.done, true, 'done');
        equal(r.done_reason, 'stop', 'done_reason');
        equal(r.model, MODEL, 'model');
        equal(r.prompt_eval_count, 11, 'prompt_eval_count');
        equal(r.eval_count, 9, 'eval_count');
        expect(!Number.isNaN(Date.parse(r.created_at)), `created_at ${r.created_at}`);
        equal(await server.requests(), ['POST /api/chat -> 200'], 'requests');
        equal((await server.bodies())[0], { model: MODEL, messages: [{ role: 'user', content: 'Say hello' }], stream: false },
              'body');
    });

test('ollama chat: a stream of JSON lines, the last with done, done_reason and the counts',
    { steps: [{ reply: { text: 'Streaming words one by one.', delta_size: 5, usage: { prompt: 9, completion: 6 } } }] },
    async (server) => {
        const parts = [];
        for await (const p of await ollama(server).chat({ model: MODEL, messages: [{ role: 'user', content: 'Stream' }],
                                                          stream: true }))
            parts.push(p);
        equal(parts.map((p) => p.message.content).join(''), 'Streaming words one by one.', 'content');
        expect(parts.length === 7, `lines ${parts.length}`);
        const last = parts[parts.length - 1];
        equal([last.done, last.done_reason, last.prompt_eval_count, last.eval_count], [true, 'stop', 9, 6], 'last line');
        expect(parts.slice(0, -1).every((p) => p.done === false), 'done false before the last line');
        equal((await server.bodies())[0].stream, true, 'stream');
    });

test('ollama chat: think: thinking in the message and in the streamed lines',
    { repeat: true, steps: [{ reply: { reasoning: 'Six times seven is 42.', text: 'It is 42.', delta_size: 8 } }] },
    async (server) => {
        const ask = { model: 'qwen3', messages: [{ role: 'user', content: 'What is 6 x 7?' }], think: true };
        const r = await ollama(server).chat(ask);
        equal(r.message.thinking, 'Six times seven is 42.', 'thinking');
        equal(r.message.content, 'It is 42.', 'content');
        let thinking = '', content = '';
        for await (const p of await ollama(server).chat({ ...ask, stream: true, think: 'high' })) {
            thinking += p.message.thinking ?? '';
            content += p.message.content;
        }
        equal([thinking, content], ['Six times seven is 42.', 'It is 42.'], 'streamed');
        const bodies = await server.bodies();
        equal([bodies[0].think, bodies[1].think], [true, 'high'], 'think');
    });

test('ollama chat: tools: tool_calls with object arguments, whole and streamed; the results by tool_name',
    { repeat: true, steps: [{ route: 'ollama', reply: { tool_calls: [{ name: 'get_weather', arguments: '{"city":"Oslo"}' },
                                                                    { id: 'call_2', name: 'get_time', arguments: '{}' }] } }] },
    async (server) => {
        const messages = [{ role: 'user', content: 'Weather in Oslo?' }];
        const r = await ollama(server).chat({ model: MODEL, messages, tools: [weather] });
        equal(r.message.tool_calls, [{ function: { index: 0, name: 'get_weather', arguments: { city: 'Oslo' } } },
                                     { id: 'call_2', function: { index: 1, name: 'get_time', arguments: {} } }], 'tool_calls');
        const streamed = [];
        for await (const p of await ollama(server).chat({ model: MODEL, messages, tools: [weather], stream: true }))
            if (p.message.tool_calls) streamed.push(...p.message.tool_calls);
        equal(streamed, r.message.tool_calls, 'streamed tool_calls');
        // the reference's history with tools: the assistant message as received, then the results
        const back = await ollama(server).chat({ model: MODEL, tools: [weather], messages: [
            ...messages, r.message,
            { role: 'tool', content: '{"celsius": -3}', tool_name: 'get_weather' },
            { role: 'tool', content: '12:00', tool_name: 'get_time' }] });
        equal(back.message.tool_calls.length, 2, 'answered');
        equal(await server.requests(), ['POST /api/chat -> 200', 'POST /api/chat -> 200', 'POST /api/chat -> 200'], 'requests');
        equal((await server.bodies())[2].messages[2], { role: 'tool', content: '{"celsius": -3}', tool_name: 'get_weather' },
              'tool result');
    });

test('ollama chat: images (bytes, base64-encoded by the client) and options, keep_alive',
    { steps: [{ reply: { text: 'A red pixel.' } }] },
    async (server) => {
        const png = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
        const r = await ollama(server).chat({ model: 'llava', keep_alive: '10m',
                                              options: { temperature: 0, num_ctx: 8192, num_predict: 64, stop: ['\n'] },
                                              messages: [{ role: 'user', content: 'What is this?', images: [png] }] });
        equal(r.message.content, 'A red pixel.', 'content');
        const body = (await server.bodies())[0];
        equal(body.messages[0].images, ['iVBORw0KGgo='], 'images');
        equal(body.options, { temperature: 0, num_ctx: 8192, num_predict: 64, stop: ['\n'] }, 'options');
        equal(body.keep_alive, '10m', 'keep_alive');
    });

test('ollama chat: structured output (format a JSON schema, and "json"); the content parses',
    { steps: [{ reply: { text: '{"age":22,"available":true}' } }, { reply: { text: '{"ok":true}' } }] },
    async (server) => {
        const schema = { type: 'object', properties: { age: { type: 'integer' }, available: { type: 'boolean' } },
                         required: ['age', 'available'] };
        const r = await ollama(server).chat({ model: MODEL, format: schema,
                                              messages: [{ role: 'user', content: 'Ollama is 22 and available.' }] });
        equal(JSON.parse(r.message.content), { age: 22, available: true }, 'parsed');
        const j = await ollama(server).chat({ model: MODEL, format: 'json', messages: [{ role: 'user', content: 'x' }] });
        equal(JSON.parse(j.message.content), { ok: true }, 'json');
        equal((await server.bodies()).map((b) => b.format), [schema, 'json'], 'format');
    });

test('ollama embed: input a string and an array; dimensions; the same text, the same vector',
    { steps: [] },
    async (server) => {
        const one = await ollama(server).embed({ model: 'nomic-embed-text', input: 'hello', dimensions: 8 });
        equal(one.embeddings.length, 1, 'one');
        equal(one.embeddings[0].length, 8, 'dimensions');
        const many = await ollama(server).embed({ model: 'nomic-embed-text', input: ['hello', 'world', 'hello'], dimensions: 8 });
        equal(many.embeddings.length, 3, 'many');
        equal(many.embeddings[0], one.embeddings[0], 'same text');
        expect(!isDeepStrictEqual(many.embeddings[0], many.embeddings[1]), 'different texts');
        expect(many.prompt_eval_count > 0, 'prompt_eval_count');
        equal(await server.requests(), ['POST /api/embed -> 200', 'POST /api/embed -> 200'], 'requests');
    });

test('ollama errors: a model it does not have (404) is a ResponseError with Ollama\'s message',
    { steps: [{ status: 404 }] },
    async (server) => {
        const e = await rejects(ollama(server).chat({ model: 'llama9', messages: [{ role: 'user', content: 'x' }] }), '404');
        equal(e.name, 'ResponseError', 'error class');
        equal(e.status_code, 404, 'status_code');
        equal(e.error, 'model "llama9" not found, try pulling it first', 'error');
    });

test('ollama errors: an error line after two lines of text ends the stream with that error',
    { steps: [{ reply: { text: 'a few words before the error' }, fault: 'error_event', after_events: 2,
                error: { message: 'an error was encountered while running the model: CUDA error' } }] },
    async (server) => {
        let content = '';
        const e = await rejects((async () => {
            for await (const p of await ollama(server).chat({ model: MODEL, messages: [{ role: 'user', content: 'x' }],
                                                              stream: true }))
                content += p.message.content;
        })(), 'error line');
        equal(e.message, 'an error was encountered while running the model: CUDA error', 'message');
        equal(content, 'a few wo', 'text before the error (two lines of 4 bytes)');
    });

test('ollama errors: a request Ollama refuses (a message without a role) is a 400 with its message',
    { steps: [] },
    async (server) => {
        const e = await rejects(ollama(server).chat({ model: MODEL, messages: [{ content: 'x' }] }), '400');
        equal(e.status_code, 400, 'status_code');
        expect(/role/.test(e.error), `error ${e.error}`);
    });

test('ollama list: the models of /api/tags',
    { steps: [] },
    async (server) => {
        const r = await ollama(server).list();
        const names = r.models.map((m) => m.name);
        expect(names.includes('llama3.2:latest') && names.includes('nomic-embed-text:latest'), `names ${names}`);
        equal(r.models[0].details.format, 'gguf', 'details');
        equal(await server.requests(), ['GET /api/tags -> 200'], 'requests');
    });

// ---- Azure OpenAI ----------------------------------------------------------------------------

const AZURE_KEY = 'azure-test-key-0123456789';
const VERSION = '2024-10-21';
const azure = (server, options = {}) =>
    new AzureOpenAI({ endpoint: server.base, apiKey: AZURE_KEY, apiVersion: VERSION, maxRetries: 0, timeout: 20000, ...options });
const DEPLOY = 'gpt-4o-deploy';
const ask = [{ role: 'user', content: 'Say hello' }];

test('azure chat.completions.create: the deployment path, api-version and api-key; Azure\'s filter results',
    { steps: [{ reply: { text: 'Hello from Azure', usage: { prompt: 8, completion: 3 } } }] },
    async (server) => {
        const r = await azure(server).chat.completions.create({ model: DEPLOY, messages: ask });
        equal(r.choices[0].message.content, 'Hello from Azure', 'content');
        equal(r.choices[0].finish_reason, 'stop', 'finish_reason');
        equal(r.choices[0].content_filter_results.violence, { filtered: false, severity: 'safe' }, 'content_filter_results');
        equal(r.prompt_filter_results[0].prompt_index, 0, 'prompt_filter_results');
        equal(r.usage.total_tokens, 11, 'usage');
        equal(await server.requests(), [`POST /openai/deployments/${DEPLOY}/chat/completions?api-version=${VERSION} -> 200`],
              'requests');
    }, ['--api-key', AZURE_KEY]);

test('azure chat.completions stream: Azure\'s first chunk without choices, then the deltas; finalChatCompletion',
    { repeat: true, steps: [{ reply: { text: 'Streaming from Azure.', delta_size: 5 } }] },
    async (server) => {
        const chunks = [];
        for await (const c of await azure(server).chat.completions.create({ model: DEPLOY, messages: ask, stream: true }))
            chunks.push(c);
        equal(chunks[0].choices, [], 'first chunk');
        equal(chunks[0].prompt_filter_results.length, 1, 'prompt_filter_results');
        equal(chunks.map((c) => c.choices[0]?.delta?.content ?? '').join(''), 'Streaming from Azure.', 'content');
        const helper = azure(server).chat.completions.stream({ model: DEPLOY, messages: ask });
        const final = await helper.finalChatCompletion();
        equal(final.choices[0].message.content, 'Streaming from Azure.', 'final');
        equal(final.choices[0].finish_reason, 'stop', 'finish_reason');
    }, ['--api-key', AZURE_KEY]);

test('azure chat: tool calls, and a configured deployment in place of the model',
    { steps: [{ reply: { tool_calls: [{ id: 'call_1', name: 'get_weather', arguments: '{"city":"Oslo"}' }] } }] },
    async (server) => {
        const r = await azure(server, { deployment: 'weather-gpt' }).chat.completions.create({
            model: 'gpt-4o', messages: [{ role: 'user', content: 'Weather in Oslo?' }], tools: [weather],
            tool_choice: { type: 'function', function: { name: 'get_weather' } } });
        equal(r.choices[0].message.tool_calls, [{ id: 'call_1', type: 'function',
                                                  function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } }], 'tool_calls');
        equal(r.choices[0].finish_reason, 'tool_calls', 'finish_reason');
        equal(await server.requests(), [`POST /openai/deployments/weather-gpt/chat/completions?api-version=${VERSION} -> 200`],
              'requests');
    });

test('azure content filter: a refused prompt is a BadRequestError with code content_filter and the innererror',
    { steps: [{ status: 400, error: { type: 'content_filter' } }] },
    async (server) => {
        const e = await rejects(azure(server).chat.completions.create({ model: DEPLOY, messages: ask }), '400');
        expect(e instanceof OpenAIErrors.BadRequestError, `error class ${e.constructor.name}`);
        equal(e.status, 400, 'status');
        equal(e.code, 'content_filter', 'code');
        equal(e.param, 'prompt', 'param');
        equal(e.error.innererror.code, 'ResponsibleAIPolicyViolation', 'innererror.code');
        equal(e.error.innererror.content_filter_result.violence, { filtered: true, severity: 'medium' }, 'violence');
    });

test('azure content filter: a reply cut by the filter, finish_reason content_filter, whole and streamed',
    { repeat: true, steps: [{ reply: { text: 'It was a dark', finish: 'content_filter' } }] },
    async (server) => {
        const r = await azure(server).chat.completions.create({ model: DEPLOY, messages: ask });
        equal(r.choices[0].finish_reason, 'content_filter', 'finish_reason');
        equal(r.choices[0].content_filter_results.violence.filtered, true, 'filtered');
        const final = await azure(server).chat.completions.stream({ model: DEPLOY, messages: ask }).finalChatCompletion();
        equal(final.choices[0].finish_reason, 'content_filter', 'streamed finish_reason');
        equal(final.choices[0].message.content, 'It was a dark', 'streamed content');
    });

test('azure errors: a wrong key is Azure\'s 401, an AuthenticationError',
    { steps: [] },
    async (server) => {
        const e = await rejects(azure(server, { apiKey: 'azure-wrong' }).chat.completions.create({ model: DEPLOY, messages: ask }),
                                '401');
        expect(e instanceof OpenAIErrors.AuthenticationError, `error class ${e.constructor.name}`);
        equal(e.status, 401, 'status');
        expect(/Access denied/.test(e.message), `message ${e.message}`);
    }, ['--api-key', AZURE_KEY]);

test('azure responses.create and its stream: /openai/responses with the api-version',
    { repeat: true, steps: [{ route: 'responses', reply: { text: 'Hello from the Responses API', delta_size: 6 } }] },
    async (server) => {
        const client = azure(server, { apiVersion: '2025-04-01-preview' });
        const r = await client.responses.create({ model: DEPLOY, input: 'Say hello' });
        equal(r.output_text, 'Hello from the Responses API', 'output_text');
        let text = '';
        let completed = false;
        for await (const ev of await client.responses.create({ model: DEPLOY, input: 'Say hello', stream: true })) {
            if (ev.type === 'response.output_text.delta') text += ev.delta;
            if (ev.type === 'response.completed') completed = true;
        }
        equal([text, completed], ['Hello from the Responses API', true], 'streamed');
        equal(await server.requests(), ['POST /openai/responses?api-version=2025-04-01-preview -> 200',
                                        'POST /openai/responses?api-version=2025-04-01-preview -> 200'], 'requests');
    }, ['--api-key', AZURE_KEY]);

test('azure embeddings.create: the deployment path',
    { steps: [] },
    async (server) => {
        const r = await azure(server).embeddings.create({ model: 'embed-deploy', input: ['hello', 'world'], dimensions: 8,
                                                         encoding_format: 'float' });
        equal(r.data.length, 2, 'vectors');
        equal(r.data[0].embedding.length, 8, 'dimensions');
        equal(await server.requests(), [`POST /openai/deployments/embed-deploy/embeddings?api-version=${VERSION} -> 200`],
              'requests');
    }, ['--api-key', AZURE_KEY]);

// ---- run -------------------------------------------------------------------------------------

console.log(`ollama ${ollamaVersion}, openai ${openaiVersion} (AzureOpenAI), Node ${process.version}`);
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

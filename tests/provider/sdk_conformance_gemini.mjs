// tests/provider/sdk_conformance_gemini.mjs: the official Google Gen AI SDK for Node,
// `@google/genai` (pinned in tests/peers/sdk/package.json; its 2.x versions run on Node 20), drives
// `parley fake-server`'s Gemini routes the way a user's program does (GoogleGenAI with
// httpOptions.baseUrl at the fake server, API version v1beta), and every case checks what the SDK
// parsed against the script the server answered from: texts, streamed chunks, function calls,
// thoughts and their signatures, usage, JSON mode, embeddings, blocked prompts, Google's error
// bodies and the SDK's retries (counted from the server's --log).
//
//   node sdk_conformance_gemini.mjs PARLEY_PROGRAM NODE_PEERS_DIR
//
// The SDK is loaded from NODE_PEERS_DIR/sdk/node_modules (./dev.sh installs it into
// .cache/node-peers/sdk); a missing SDK is a failure. One fake server per case. Prints one line per
// case; exits 1 when a case fails.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';

const program = process.argv[2];
const peers = process.argv[3];
if (!program || !peers) {
    console.error('usage: node sdk_conformance_gemini.mjs PARLEY_PROGRAM NODE_PEERS_DIR');
    process.exit(2);
}
let require, GoogleGenAI, ApiError, genaiVersion;
try {
    require = createRequire(join(peers, 'sdk', 'package.json'));
    ({ GoogleGenAI, ApiError } = require('@google/genai'));
    // the package exports no ./package.json: read it from the folder it resolves to
    const { readFileSync } = await import('node:fs');
    const main = require.resolve('@google/genai');
    const root = main.slice(0, main.lastIndexOf(join('node_modules', '@google', 'genai')) + join('node_modules', '@google', 'genai').length);
    genaiVersion = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version;
} catch (e) {
    console.error(`error: @google/genai is not installed in ${join(peers, 'sdk')} (./dev.sh installs it ` +
                  `from tests/peers/sdk/package.json): ${e.message}`);
    process.exit(1);
}

const work = mkdtempSync(join(tmpdir(), 'parley-sdk-gemini-'));

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
                // the requests the server answered: "METHOD TARGET -> STATUS"
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

const KEY = 'AIza-test-key-0123456789';
function gemini(server, httpOptions = {}) {
    return new GoogleGenAI({ apiKey: KEY, apiVersion: 'v1beta', httpOptions: { baseUrl: server.base, ...httpOptions } });
}
const MODEL = 'gemini-2.5-flash';
const statuses = async (server) => (await server.requests()).map((r) => r.split(' -> ')[1]);

const cases = [];
function test(name, script, run, args) {
    cases.push({ name, script, run, args });
}

test('models.generateContent: text, finish reason, usage, model version, response id; the key checked',
    { steps: [{ reply: { text: 'Hello from the script!', usage: { prompt: 11, completion: 9, cached: 3, reasoning: 4 } } }] },
    async (server) => {
        const r = await gemini(server).models.generateContent({ model: MODEL, contents: 'Say hello' });
        equal(r.text, 'Hello from the script!', 'text');
        equal(r.candidates.length, 1, 'candidates');
        equal(r.candidates[0].finishReason, 'STOP', 'finishReason');
        equal(r.candidates[0].content.role, 'model', 'role');
        equal(r.usageMetadata.promptTokenCount, 11, 'promptTokenCount');
        equal(r.usageMetadata.candidatesTokenCount, 5, 'candidatesTokenCount');
        equal(r.usageMetadata.thoughtsTokenCount, 4, 'thoughtsTokenCount');
        equal(r.usageMetadata.cachedContentTokenCount, 3, 'cachedContentTokenCount');
        equal(r.usageMetadata.totalTokenCount, 20, 'totalTokenCount');
        equal(r.modelVersion, MODEL, 'modelVersion');
        expect(/^gemini_fake_/.test(r.responseId), `responseId ${r.responseId}`);
        equal(await server.requests(), [`POST /v1beta/models/${MODEL}:generateContent -> 200`], 'requests');
    }, ['--api-key', KEY]);

test('models.generateContent: a wrong key is the API\'s 400 API_KEY_INVALID',
    { steps: [] },
    async (server) => {
        try {
            await new GoogleGenAI({ apiKey: 'AIza-wrong', apiVersion: 'v1beta', httpOptions: { baseUrl: server.base } })
                .models.generateContent({ model: MODEL, contents: 'x' });
            throw new Mismatch('no error');
        } catch (e) {
            if (e instanceof Mismatch) throw e;
            expect(e instanceof ApiError, `ApiError, found ${e}`);
            equal(e.status, 400, 'status');
            const body = JSON.parse(e.message);
            equal(body.error.status, 'INVALID_ARGUMENT', 'error.status');
            equal(body.error.details[0].reason, 'API_KEY_INVALID', 'reason');
        }
    }, ['--api-key', KEY]);

test('models.generateContentStream: chunks of text, the finish reason and the usage in the last chunk',
    { steps: [{ reply: { text: 'Streaming words one by one.', delta_size: 5, usage: { prompt: 9, completion: 6 } } }] },
    async (server) => {
        const stream = await gemini(server).models.generateContentStream({ model: MODEL, contents: 'Stream please' });
        const chunks = [];
        for await (const c of stream) chunks.push(c);
        equal(chunks.map((c) => c.text ?? '').join(''), 'Streaming words one by one.', 'text');
        expect(chunks.length >= 6, `chunks ${chunks.length}`);
        const last = chunks[chunks.length - 1];
        equal(last.candidates[0].finishReason, 'STOP', 'finishReason');
        equal(last.usageMetadata.promptTokenCount, 9, 'promptTokenCount');
        equal(last.usageMetadata.candidatesTokenCount, 6, 'candidatesTokenCount');
        equal(await server.requests(), [`POST /v1beta/models/${MODEL}:streamGenerateContent?alt=sse -> 200`], 'requests');
    });

test('function calls: functionCall parts with args, the id when the script gives one; whole and streamed',
    { repeat: true, steps: [{ reply: { tool_calls: [{ name: 'get_weather', arguments: '{"city":"Oslo"}' },
                                                   { id: 'fc_2', name: 'get_time', arguments: '{}' }] } }] },
    async (server) => {
        const ai = gemini(server);
        const config = {
            tools: [{ functionDeclarations: [
                { name: 'get_weather', description: 'The weather of a city',
                  parametersJsonSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
                { name: 'get_time' }] }],
            toolConfig: { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['get_weather', 'get_time'] } },
        };
        const r = await ai.models.generateContent({ model: MODEL, contents: 'Weather?', config });
        equal(r.functionCalls, [{ name: 'get_weather', args: { city: 'Oslo' } }, { name: 'get_time', args: {}, id: 'fc_2' }],
              'functionCalls');
        equal(r.candidates[0].finishReason, 'STOP', 'finishReason');
        const calls = [];
        for await (const c of await ai.models.generateContentStream({ model: MODEL, contents: 'Weather?', config }))
            if (c.functionCalls) calls.push(...c.functionCalls);
        equal(calls, r.functionCalls, 'streamed functionCalls');
        // the results go back as functionResponse parts in a user turn
        const back = await ai.models.generateContent({ model: MODEL, config, contents: [
            { role: 'user', parts: [{ text: 'Weather?' }] },
            r.candidates[0].content,
            { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { celsius: -3 } } },
                                    { functionResponse: { id: 'fc_2', name: 'get_time', response: { output: '12:00' } } }] }] });
        equal(back.functionCalls.length, 2, 'answered');
    });

test('thoughts: a thought part with its signature, then the answer; thoughtsTokenCount',
    { repeat: true, steps: [{ reply: { reasoning: 'Six times seven is 42.', text: 'It is 42.', delta_size: 6,
                                       usage: { prompt: 10, completion: 20, reasoning: 12 } } }] },
    async (server) => {
        const ai = gemini(server);
        const config = { thinkingConfig: { includeThoughts: true, thinkingBudget: 1024 } };
        const r = await ai.models.generateContent({ model: MODEL, contents: 'What is 6 x 7?', config });
        const parts = r.candidates[0].content.parts;
        equal(parts[0].thought, true, 'thought');
        equal(parts[0].text, 'Six times seven is 42.', 'thought text');
        expect(typeof parts[0].thoughtSignature === 'string' && parts[0].thoughtSignature.length > 0, 'thoughtSignature');
        equal(r.text, 'It is 42.', 'text without the thoughts');
        equal(r.usageMetadata.thoughtsTokenCount, 12, 'thoughtsTokenCount');
        equal(r.usageMetadata.candidatesTokenCount, 8, 'candidatesTokenCount');
        let thoughts = '', text = '';
        for await (const c of await ai.models.generateContentStream({ model: MODEL, contents: 'What is 6 x 7?', config }))
            for (const p of c.candidates?.[0]?.content?.parts ?? []) {
                if (p.thought) thoughts += p.text;
                else text += p.text ?? '';
            }
        equal(thoughts, 'Six times seven is 42.', 'streamed thoughts');
        equal(text, 'It is 42.', 'streamed text');
    });

test('JSON mode: responseMimeType and responseJsonSchema; the text parses as the scripted JSON',
    { steps: [{ reply: { text: '{"city":"Oslo","celsius":-3}' } }] },
    async (server) => {
        const r = await gemini(server).models.generateContent({
            model: MODEL, contents: 'Weather in Oslo as JSON',
            config: { responseMimeType: 'application/json',
                      responseJsonSchema: { type: 'object', properties: { city: { type: 'string' }, celsius: { type: 'integer' } },
                                            required: ['city', 'celsius'] } } });
        equal(JSON.parse(r.text), { city: 'Oslo', celsius: -3 }, 'parsed');
    });

test('candidateCount 2: two candidates with their indexes and finish reasons',
    { steps: [{ reply: { choices: [{ text: 'first' }, { text: 'second', finish: 'length' }] } }] },
    async (server) => {
        const r = await gemini(server).models.generateContent({ model: MODEL, contents: 'x', config: { candidateCount: 2 } });
        equal(r.candidates.map((c) => [c.index, c.content.parts[0].text, c.finishReason]),
              [[0, 'first', 'STOP'], [1, 'second', 'MAX_TOKENS']], 'candidates');
    });

test('a blocked prompt: promptFeedback.blockReason without candidates',
    { steps: [{ reply: { block_reason: 'SAFETY' } }] },
    async (server) => {
        const r = await gemini(server).models.generateContent({ model: MODEL, contents: 'something bad' });
        equal(r.promptFeedback.blockReason, 'SAFETY', 'blockReason');
        equal(r.candidates, undefined, 'candidates');
        equal(r.text, undefined, 'text');
    });

test('embedContent: batchEmbedContents with outputDimensionality and taskType; the same text, the same vector',
    { steps: [] },
    async (server) => {
        const r = await gemini(server).models.embedContent({
            model: 'gemini-embedding-001', contents: ['hello', 'world', 'hello'],
            config: { outputDimensionality: 8, taskType: 'SEMANTIC_SIMILARITY' } });
        equal(r.embeddings.length, 3, 'embeddings');
        expect(r.embeddings.every((e) => e.values.length === 8), 'dimensions');
        equal(r.embeddings[0].values, r.embeddings[2].values, 'same text');
        expect(!isDeepStrictEqual(r.embeddings[0].values, r.embeddings[1].values), 'different texts');
        equal(await server.requests(), ['POST /v1beta/models/gemini-embedding-001:batchEmbedContents -> 200'], 'requests');
    });

test('embedContent: scripted vectors',
    { steps: [{ route: 'gemini_embeddings', reply: { embeddings: [[0.5, -0.25]] } }] },
    async (server) => {
        const r = await gemini(server).models.embedContent({ model: 'gemini-embedding-001', contents: 'one' });
        equal(r.embeddings, [{ values: [0.5, -0.25] }], 'embeddings');
    });

test('errors: 429 RESOURCE_EXHAUSTED as ApiError, without retries by default',
    { steps: [{ status: 429 }] },
    async (server) => {
        try {
            await gemini(server).models.generateContent({ model: MODEL, contents: 'x' });
            throw new Mismatch('no error');
        } catch (e) {
            if (e instanceof Mismatch) throw e;
            expect(e instanceof ApiError, `ApiError, found ${e}`);
            equal(e.status, 429, 'status');
            equal(JSON.parse(e.message), { error: { code: 429, message: 'Resource has been exhausted (e.g. check quota).',
                                                    status: 'RESOURCE_EXHAUSTED' } }, 'body');
        }
        equal(await statuses(server), ['429'], 'attempts');
    });

test('errors: 429 and 503 retried by the SDK\'s retryOptions, then the reply',
    { steps: [{ status: 429 }, { status: 503 }, { reply: { text: 'after the retries' } }] },
    async (server) => {
        const r = await gemini(server, { retryOptions: { attempts: 3, initialDelay: 0.01, maxDelay: 0.05 } })
            .models.generateContent({ model: MODEL, contents: 'x' });
        equal(r.text, 'after the retries', 'text');
        equal(await statuses(server), ['429', '503', '200'], 'attempts');
    });

test('errors: 400 INVALID_ARGUMENT is not retried',
    { steps: [{ status: 400, error: { message: 'Invalid value at contents[0]' } }] },
    async (server) => {
        try {
            await gemini(server, { retryOptions: { attempts: 3, initialDelay: 0.01 } }).models.generateContent({ model: MODEL, contents: 'x' });
            throw new Mismatch('no error');
        } catch (e) {
            if (e instanceof Mismatch) throw e;
            equal(e.status, 400, 'status');
            equal(JSON.parse(e.message).error.message, 'Invalid value at contents[0]', 'message');
        }
        equal(await statuses(server), ['400'], 'attempts');
    });

test('errors: an error chunk in a stream is an ApiError with its code',
    { steps: [{ reply: { text: 'a few words before the error' }, fault: 'error_event', after_events: 2,
                error: { type: 'UNAVAILABLE', message: 'The model is overloaded.' } }] },
    async (server) => {
        let text = '';
        try {
            for await (const c of await gemini(server).models.generateContentStream({ model: MODEL, contents: 'x' })) text += c.text ?? '';
            throw new Mismatch('no error');
        } catch (e) {
            if (e instanceof Mismatch) throw e;
            expect(e instanceof ApiError, `ApiError, found ${e}`);
            equal(e.status, 503, 'status');
            expect(e.message.includes('The model is overloaded.'), `message ${e.message}`);
        }
        equal(text, 'a few wo', 'text before the error (two chunks of 4 bytes)');
    });

test('models.list: Gemini\'s models list',
    { steps: [] },
    async (server) => {
        const names = [];
        for await (const m of await gemini(server).models.list()) names.push(m.name);
        expect(names.includes('models/gemini-2.5-flash'), `names ${names}`);
        expect(names.includes('models/gemini-embedding-001'), `names ${names}`);
    }, ['--api-key', KEY]);

// ---- run -------------------------------------------------------------------------------------

console.log(`@google/genai ${genaiVersion}, Node ${process.version}`);
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

// tests/provider/sdk_conformance_batch.mjs: the official SDKs for Node, `openai` and
// `@anthropic-ai/sdk` (pinned in tests/peers/sdk/package.json), drive the batch APIs of
// `parley fake-server` the way a user's program does: OpenAI's client.files.create (a multipart
// upload), client.batches.create / retrieve / list / cancel and client.files.content, Anthropic's
// client.messages.batches.create / retrieve / list / results / cancel. Every case checks what the
// SDK parsed against the script the server answered from: the batches' states as they move on
// with each retrieval, the request counts, the result lines mapped back by custom_id (replies,
// error replies, expired and cancelled requests), and the API errors the SDKs raise.
//
//   node sdk_conformance_batch.mjs PARLEY_PROGRAM NODE_PEERS_DIR
//
// The SDKs are loaded from NODE_PEERS_DIR/sdk/node_modules (./dev.sh installs them into
// .cache/node-peers/sdk); a missing SDK is a failure. One fake server per case. Prints one line
// per case; exits 1 when a case fails.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';

const program = process.argv[2];
const peers = process.argv[3];
if (!program || !peers) {
    console.error('usage: node sdk_conformance_batch.mjs PARLEY_PROGRAM NODE_PEERS_DIR');
    process.exit(2);
}
let require, OpenAI, Anthropic, toFile;
try {
    require = createRequire(join(peers, 'sdk', 'package.json'));
    OpenAI = require('openai').default ?? require('openai');
    ({ toFile } = require('openai'));
    Anthropic = require('@anthropic-ai/sdk').default ?? require('@anthropic-ai/sdk');
} catch (e) {
    console.error(`error: the official SDKs are not installed in ${join(peers, 'sdk')} (./dev.sh installs them ` +
                  `from tests/peers/sdk/package.json): ${e.message}`);
    process.exit(1);
}
const openaiVersion = require('openai/version').VERSION;
const anthropicVersion = require('@anthropic-ai/sdk/version').VERSION;

const work = mkdtempSync(join(tmpdir(), 'parley-sdk-batch-'));

class Mismatch extends Error {}
function expect(condition, what) {
    if (!condition) throw new Mismatch(what);
}
function equal(actual, expected, what) {
    if (!isDeepStrictEqual(actual, expected))
        throw new Mismatch(`${what}: expected ${JSON.stringify(expected)}, found ${JSON.stringify(actual)}`);
}

/// Starts `parley fake-server --log` with this script; resolves to { base, requests(), stop() }.
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

const KEY = 'sk-batch-sdk-test';
const openai = (server) => new OpenAI({ apiKey: KEY, baseURL: `${server.base}/v1`, maxRetries: 0 });
const anthropic = (server) => new Anthropic({ apiKey: KEY, baseURL: server.base, maxRetries: 0 });

/// The JSONL of chat-completion requests, one per text, custom_ids r1, r2...
function chatLines(texts, url = '/v1/chat/completions') {
    return texts.map((t, i) => JSON.stringify({
        custom_id: `r${i + 1}`, method: 'POST', url,
        body: url === '/v1/embeddings' ? { model: 'text-embedding-3-small', input: t }
            : url === '/v1/responses' ? { model: 'gpt-4o-mini', input: t }
                : { model: 'gpt-4o-mini', messages: [{ role: 'user', content: t }] },
    })).join('\n') + '\n';
}

/// Retrieves the batch until it has ended; the statuses seen, in order, without repeats.
async function untilEnded(retrieve, id, ended, statusOf) {
    const seen = [];
    for (let i = 0; i < 50; ++i) {
        const b = await retrieve(id);
        const s = statusOf(b);
        if (seen[seen.length - 1] !== s) seen.push(s);
        if (ended(s)) return { batch: b, seen };
    }
    throw new Mismatch(`the batch did not end: ${seen}`);
}

/// The lines of a file's content (a Response) as JSON.
async function jsonLines(response) {
    const text = await response.text();
    return text.split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));
}

const cases = [];
function test(name, script, run, args) {
    cases.push({ name, script, run, args });
}

test('openai: files.create, batches.create, retrieve until completed, files.content of the output and error files',
    { steps: [{ reply: { text: 'First answer', usage: { prompt: 7, completion: 2 } } }, { status: 400 },
              { reply: { text: 'Third answer' } }],
      batch: { polls: 1 } },
    async (server) => {
        const client = openai(server);
        const file = await client.files.create({ file: await toFile(Buffer.from(chatLines(['a', 'b', 'c'])), 'batch.jsonl'),
                                                 purpose: 'batch' });
        expect(/^file-fake-/.test(file.id), `file id ${file.id}`);
        equal(file.object, 'file', 'object');
        equal(file.purpose, 'batch', 'purpose');
        equal(file.filename, 'batch.jsonl', 'filename');
        equal(file.bytes, Buffer.byteLength(chatLines(['a', 'b', 'c'])), 'bytes');
        const again = await client.files.retrieve(file.id);
        equal(again.id, file.id, 'files.retrieve');
        const created = await client.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions',
                                                      completion_window: '24h', metadata: { job: 'nightly' } });
        equal(created.object, 'batch', 'object');
        equal(created.status, 'validating', 'status at creation');
        equal(created.endpoint, '/v1/chat/completions', 'endpoint');
        equal(created.input_file_id, file.id, 'input_file_id');
        equal(created.metadata, { job: 'nightly' }, 'metadata');
        equal(created.request_counts, { total: 3, completed: 0, failed: 0 }, 'request_counts at creation');
        const { batch, seen } = await untilEnded((id) => client.batches.retrieve(id), created.id,
            (s) => ['completed', 'failed', 'expired', 'cancelled'].includes(s), (b) => b.status);
        equal(seen, ['validating', 'in_progress', 'finalizing', 'completed'], 'statuses');
        equal(batch.request_counts, { total: 3, completed: 2, failed: 1 }, 'request_counts');
        expect(typeof batch.completed_at === 'number' && batch.completed_at >= created.created_at, `completed_at ${batch.completed_at}`);
        const output = await jsonLines(await client.files.content(batch.output_file_id));
        equal(output.map((l) => l.custom_id), ['r1', 'r3'], 'output custom_ids');
        equal(output[0].response.status_code, 200, 'status_code');
        equal(output[0].response.body.choices[0].message.content, 'First answer', 'r1 reply');
        equal(output[0].response.body.usage.prompt_tokens, 7, 'r1 usage');
        equal(output[1].response.body.choices[0].message.content, 'Third answer', 'r3 reply');
        equal(output[0].error, null, 'error of a success');
        const errors = await jsonLines(await client.files.content(batch.error_file_id));
        equal(errors.map((l) => l.custom_id), ['r2'], 'error file custom_ids');
        equal(errors[0].response.status_code, 400, 'error status_code');
        equal(errors[0].response.body.error.type, 'invalid_request_error', 'error type');
        const list = await client.batches.list();
        equal(list.data.map((b) => b.id), [created.id], 'batches.list');
        const requests = await server.requests();
        equal(requests[0], 'POST /v1/files -> 200', 'the upload');
        equal(requests[2], 'POST /v1/batches -> 200', 'the creation');
    });

test('openai: /v1/responses and /v1/embeddings batches; a file that does not validate fails the batch',
    { steps: [], batch: { polls: 0 } },
    async (server) => {
        const client = openai(server);
        for (const url of ['/v1/responses', '/v1/embeddings']) {
            const file = await client.files.create({ file: await toFile(Buffer.from(chatLines(['hello', 'world'], url)), 'x.jsonl'),
                                                     purpose: 'batch' });
            const created = await client.batches.create({ input_file_id: file.id, endpoint: url, completion_window: '24h' });
            const batch = await client.batches.retrieve(created.id);
            equal(batch.status, 'completed', `${url} status`);
            const output = await jsonLines(await client.files.content(batch.output_file_id));
            if (url === '/v1/responses') {
                equal(output.map((l) => l.response.body.output[0].content[0].text), ['hello', 'world'], 'responses texts');
                equal(output[0].response.body.object, 'response', 'object');
            } else {
                equal(output.map((l) => l.response.body.data[0].embedding.length), [16, 16], 'embedding sizes');
            }
        }
        const bad = '{"custom_id":"a","method":"POST","url":"/v1/embeddings","body":{}}\nnot json\n' +
                    '{"custom_id":"a","method":"POST","url":"/v1/chat/completions","body":{}}\n';
        const file = await client.files.create({ file: await toFile(Buffer.from(bad), 'bad.jsonl'), purpose: 'batch' });
        const created = await client.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
        const batch = await client.batches.retrieve(created.id);
        equal(batch.status, 'failed', 'status');
        equal(batch.errors.data.map((e) => [e.code, e.line]), [['invalid_url', 1], ['invalid_json_line', 2], ['duplicate_custom_id', 3]],
              'errors');
        expect(typeof batch.failed_at === 'number', `failed_at ${batch.failed_at}`);
        equal(batch.output_file_id, null, 'no output file');
    });

test('openai: batches.cancel: cancelling, then cancelled; the requests answered before stay, the others are batch_cancelled',
    { steps: [], batch: { polls: 2, per_poll: 1 } },
    async (server) => {
        const client = openai(server);
        const file = await client.files.create({ file: await toFile(Buffer.from(chatLines(['a', 'b', 'c', 'd'])), 'batch.jsonl'),
                                                 purpose: 'batch' });
        const created = await client.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
        let b;
        do b = await client.batches.retrieve(created.id); while (b.status !== 'in_progress');
        equal(b.request_counts.completed, 1, 'answered at the first poll in progress');
        const cancelling = await client.batches.cancel(created.id);
        equal(cancelling.status, 'cancelling', 'status after cancel');
        expect(typeof cancelling.cancelling_at === 'number', `cancelling_at ${cancelling.cancelling_at}`);
        const { batch } = await untilEnded((id) => client.batches.retrieve(id), created.id, (s) => s === 'cancelled', (x) => x.status);
        const output = await jsonLines(await client.files.content(batch.output_file_id));
        equal(output.map((l) => l.response.body.choices[0].message.content), ['a'], 'answered');
        const errors = await jsonLines(await client.files.content(batch.error_file_id));
        equal(errors.map((l) => [l.custom_id, l.error.code]), [['r2', 'batch_cancelled'], ['r3', 'batch_cancelled'], ['r4', 'batch_cancelled']],
              'cancelled');
        try {
            await client.batches.cancel(created.id);
            throw new Mismatch('no error');
        } catch (e) {
            if (e instanceof Mismatch) throw e;
            expect(e instanceof OpenAI.BadRequestError, `BadRequestError, found ${e}`);
            expect(e.message.includes("Cannot cancel a batch with status 'cancelled'."), `message ${e.message}`);
        }
    });

test('openai: an expired batch: the requests not answered are batch_expired; unknown ids are 404',
    { steps: [], batch: { polls: 1, per_poll: 1, expire: true } },
    async (server) => {
        const client = openai(server);
        const file = await client.files.create({ file: await toFile(Buffer.from(chatLines(['a', 'b', 'c'])), 'batch.jsonl'),
                                                 purpose: 'batch' });
        const created = await client.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
        const { batch } = await untilEnded((id) => client.batches.retrieve(id), created.id, (s) => s === 'expired', (x) => x.status);
        expect(typeof batch.expired_at === 'number', `expired_at ${batch.expired_at}`);
        const errors = await jsonLines(await client.files.content(batch.error_file_id));
        equal(errors.map((l) => [l.custom_id, l.response, l.error.code]), [['r2', null, 'batch_expired'], ['r3', null, 'batch_expired']],
              'expired');
        for (const call of [() => client.batches.retrieve('batch_none'), () => client.files.content('file-none')]) {
            try {
                await call();
                throw new Mismatch('no error');
            } catch (e) {
                if (e instanceof Mismatch) throw e;
                expect(e instanceof OpenAI.NotFoundError, `NotFoundError, found ${e}`);
            }
        }
    });

test('anthropic: messages.batches.create, retrieve until ended, results by custom_id (succeeded, errored), list',
    { steps: [{ reply: { text: 'Bonjour', usage: { prompt: 5, completion: 1 } } }, { status: 529 }], batch: { polls: 1 } },
    async (server) => {
        const client = anthropic(server);
        const params = (t) => ({ model: 'claude-sonnet-4-5', max_tokens: 64, messages: [{ role: 'user', content: t }] });
        const created = await client.messages.batches.create({
            requests: [{ custom_id: 'first-1', params: params('a') }, { custom_id: 'second_2', params: params('b') },
                       { custom_id: 'third', params: params('c') }],
        });
        equal(created.type, 'message_batch', 'type');
        equal(created.processing_status, 'in_progress', 'processing_status');
        equal(created.request_counts, { processing: 3, succeeded: 0, errored: 0, canceled: 0, expired: 0 }, 'request_counts');
        equal(created.results_url, null, 'no results yet');
        expect(/^\d{4}-\d\d-\d\dT/.test(created.created_at), `created_at ${created.created_at}`);
        const { batch, seen } = await untilEnded((id) => client.messages.batches.retrieve(id), created.id, (s) => s === 'ended',
            (b) => b.processing_status);
        equal(seen, ['in_progress', 'ended'], 'statuses');
        equal(batch.request_counts, { processing: 0, succeeded: 2, errored: 1, canceled: 0, expired: 0 }, 'request_counts');
        equal(batch.results_url, `${server.base}/v1/messages/batches/${created.id}/results`, 'results_url');
        const results = {};
        for await (const r of await client.messages.batches.results(created.id)) results[r.custom_id] = r.result;
        equal(Object.keys(results).sort(), ['first-1', 'second_2', 'third'], 'custom_ids');
        equal(results['first-1'].type, 'succeeded', 'first type');
        equal(results['first-1'].message.content[0].text, 'Bonjour', 'first text');
        equal(results['first-1'].message.usage.output_tokens, 1, 'first usage');
        equal(results.second_2.type, 'errored', 'second type');
        equal(results.second_2.error.type, 'error', 'second error object');
        equal(results.second_2.error.error.type, 'overloaded_error', 'second error type');
        equal(results.third.message.content[0].text, 'c', 'third: the echo');
        const ids = [];
        for await (const b of client.messages.batches.list()) ids.push(b.id);
        equal(ids, [created.id], 'list');
        const requests = await server.requests();
        equal(requests[0], 'POST /v1/messages/batches -> 200', 'creation');
        equal(requests.slice(-2), [`GET /v1/messages/batches/${created.id}/results -> 200`, 'GET /v1/messages/batches -> 200'],
              'the results, then the list');
    });

test('anthropic: cancel (canceling, then ended with canceled results) and expiry; a bad custom_id is a 400',
    { steps: [], batch: { polls: 2, per_poll: 1 } },
    async (server) => {
        const client = anthropic(server);
        const params = (t) => ({ model: 'claude-sonnet-4-5', max_tokens: 64, messages: [{ role: 'user', content: t }] });
        const created = await client.messages.batches.create({
            requests: ['a', 'b', 'c'].map((t, i) => ({ custom_id: `r${i}`, params: params(t) })),
        });
        const polled = await client.messages.batches.retrieve(created.id);
        equal(polled.request_counts.succeeded, 1, 'one request per poll');
        const canceling = await client.messages.batches.cancel(created.id);
        equal(canceling.processing_status, 'canceling', 'processing_status after cancel');
        expect(canceling.cancel_initiated_at !== null, 'cancel_initiated_at');
        const { batch } = await untilEnded((id) => client.messages.batches.retrieve(id), created.id, (s) => s === 'ended',
            (b) => b.processing_status);
        equal(batch.request_counts, { processing: 0, succeeded: 1, errored: 0, canceled: 2, expired: 0 }, 'request_counts');
        const types = [];
        for await (const r of await client.messages.batches.results(created.id)) types.push([r.custom_id, r.result.type]);
        equal(types, [['r0', 'succeeded'], ['r1', 'canceled'], ['r2', 'canceled']], 'results');
        try {
            await client.messages.batches.create({ requests: [{ custom_id: 'has space', params: params('x') }] });
            throw new Mismatch('no error');
        } catch (e) {
            if (e instanceof Mismatch) throw e;
            expect(e instanceof Anthropic.BadRequestError, `BadRequestError, found ${e}`);
            equal(e.error.error.type, 'invalid_request_error', 'type');
            expect(e.message.includes("requests.0.custom_id: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'"), `message ${e.message}`);
        }
        try {
            await client.messages.batches.retrieve('msgbatch_none');
            throw new Mismatch('no error');
        } catch (e) {
            if (e instanceof Mismatch) throw e;
            expect(e instanceof Anthropic.NotFoundError, `NotFoundError, found ${e}`);
        }
    });

test('anthropic: an expired batch: results of type expired',
    { steps: [], batch: { polls: 1, per_poll: 1, expire: true } },
    async (server) => {
        const client = anthropic(server);
        const created = await client.messages.batches.create({
            requests: ['a', 'b'].map((t, i) => ({ custom_id: `r${i}`,
                params: { model: 'claude-sonnet-4-5', max_tokens: 8, messages: [{ role: 'user', content: t }] } })),
        });
        const { batch } = await untilEnded((id) => client.messages.batches.retrieve(id), created.id, (s) => s === 'ended',
            (b) => b.processing_status);
        equal(batch.request_counts.expired, 1, 'expired count');
        const types = [];
        for await (const r of await client.messages.batches.results(created.id)) types.push(r.result.type);
        equal(types, ['succeeded', 'expired'], 'results');
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

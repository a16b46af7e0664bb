// tests/harness/openai_sdk_assemble.mjs: makes the official `openai` Node SDK assemble a recorded
// chat-completions stream and prints the final ChatCompletion as JSON (the reference that
// tests/provider/openai_stream_test.cpp compares parley's stream_decoder with).
//
// Usage: node openai_sdk_assemble.mjs FILE.sse
// The SDK is resolved from node_modules next to this file or from NODE_PATH (see
// tests/provider/openai-sse-assembled/README.md for the pinned version). Nothing is sent over the
// network: the client's `fetch` answers every request with the file's bytes as a
// `text/event-stream` reply.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const OpenAI = require('openai').default ?? require('openai');
const { VERSION: sdkVersion } = require('openai/version');

const file = process.argv[2];
if (!file) {
    console.error('usage: node openai_sdk_assemble.mjs FILE.sse');
    process.exit(2);
}
const bytes = readFileSync(file);

const client = new OpenAI({
    apiKey: 'unused',
    baseURL: 'http://127.0.0.1:9/v1',
    maxRetries: 0,
    fetch: async () =>
        new Response(bytes, { status: 200, headers: { 'content-type': 'text/event-stream' } }),
});

// No tools and no response_format: the SDK assembles the stream without parsing content or
// arguments (`parsed` is then always null and is dropped below).
const stream = client.chat.completions.stream({ model: 'gpt-4o-2024-08-06', messages: [] });
const completion = await stream.finalChatCompletion();

// `parsed` (on every message) and `parsed_arguments` (on tool call functions) are the SDK's
// additions, not part of the API's chat.completion object.
for (const choice of completion.choices) {
    delete choice.message.parsed;
    for (const call of choice.message.tool_calls ?? []) delete call.function.parsed_arguments;
}
if (process.env.PARLEY_PRINT_SDK_VERSION) console.error(`openai ${sdkVersion}`);
process.stdout.write(JSON.stringify(completion, null, 2) + '\n');

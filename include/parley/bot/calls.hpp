// parley/bot/calls.hpp: one-shot calls of a chat_model, without a template set: `generate` (a
// prompt's reply as text), `extract<T>` (a described struct, re-asking the model with the list
// of problems until its reply fits), `extract_json` (the same for a JSON Schema given at run
// time), `classify` (one of a list of labels). A prompt is a string rendered as a template with
// the data (one user message), a conversation template, or a conversation. See docs/bot.md,
// "ai-style calls".
#ifndef PARLEY_BOT_CALLS_HPP
#define PARLEY_BOT_CALLS_HPP

#include <parley/bot/ask.hpp>
#include <parley/bot/classify.hpp>
#include <parley/bot/extract.hpp>
#include <parley/bot/extract_json.hpp>
#include <parley/bot/generate.hpp>

#endif

// parley/bot.hpp: the bot layer (template execution engine, typed C++ functions, token counting
// and the context window, the chat_model interface and the in-process models behind it, and the
// one-shot calls generate, extract<T> and classify). The
// adapter for a network chat_client is apart, in parley/bot/client_model.hpp, as it is the only
// bot header that needs Beast and OpenSSL.
#ifndef PARLEY_BOT_HPP
#define PARLEY_BOT_HPP

#include <parley/bot/bot.hpp>
#include <parley/bot/calls.hpp>
#include <parley/bot/functions.hpp>
#include <parley/bot/model.hpp>
#include <parley/bot/models.hpp>
#include <parley/bot/tokenizers.hpp>
#include <parley/bot/tokens.hpp>
#include <parley/bot/usage.hpp>

#endif

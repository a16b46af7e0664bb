// parley/provider/openai.hpp: the OpenAI chat-completions codec (POST /chat/completions, also
// Ollama, llama.cpp, vLLM and every compatible server) and embeddings, without networking: the
// request body, the reply and error bodies, and the events of a streamed reply.
#ifndef PARLEY_PROVIDER_OPENAI_HPP
#define PARLEY_PROVIDER_OPENAI_HPP

#include <parley/provider/openai/api.hpp>
#include <parley/provider/openai/common.hpp>
#include <parley/provider/openai/embeddings.hpp>
#include <parley/provider/openai/reply.hpp>
#include <parley/provider/openai/reply_sax.hpp>
#include <parley/provider/openai/request.hpp>
#include <parley/provider/openai/stream.hpp>

#endif

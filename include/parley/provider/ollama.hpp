// parley/provider/ollama.hpp: the codec of Ollama's native API (/api/chat, /api/embed), without
// networking: the request body, the reply and error bodies, the lines of a streamed reply,
// embeddings, OLLAMA_HOST.
#ifndef PARLEY_PROVIDER_OLLAMA_HPP
#define PARLEY_PROVIDER_OLLAMA_HPP

#include <parley/provider/ollama/api.hpp>
#include <parley/provider/ollama/common.hpp>
#include <parley/provider/ollama/embeddings.hpp>
#include <parley/provider/ollama/reply.hpp>
#include <parley/provider/ollama/request.hpp>
#include <parley/provider/ollama/stream.hpp>

#endif

// parley/provider/gemini.hpp: the Google Gemini API codec (generateContent,
// streamGenerateContent, embedContent, batchEmbedContents), without networking: the request
// body, the reply and error bodies, the chunks of a streamed reply, embeddings.
#ifndef PARLEY_PROVIDER_GEMINI_HPP
#define PARLEY_PROVIDER_GEMINI_HPP

#include <parley/provider/gemini/api.hpp>
#include <parley/provider/gemini/common.hpp>
#include <parley/provider/gemini/embeddings.hpp>
#include <parley/provider/gemini/reply.hpp>
#include <parley/provider/gemini/request.hpp>
#include <parley/provider/gemini/stream.hpp>

#endif

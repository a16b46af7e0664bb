// parley/provider/responses.hpp: the OpenAI Responses API codec (POST /responses), without
// networking: the request body, the reply and error bodies, and the semantic events of a
// streamed reply.
#ifndef PARLEY_PROVIDER_RESPONSES_HPP
#define PARLEY_PROVIDER_RESPONSES_HPP

#include <parley/provider/responses/api.hpp>
#include <parley/provider/responses/reply.hpp>
#include <parley/provider/responses/request.hpp>
#include <parley/provider/responses/stream.hpp>

#endif

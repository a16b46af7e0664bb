// parley/provider/anthropic.hpp: the Anthropic Messages API codec (POST /v1/messages), without
// networking: the request body, the reply and error bodies, and the events of a streamed reply.
#ifndef PARLEY_PROVIDER_ANTHROPIC_HPP
#define PARLEY_PROVIDER_ANTHROPIC_HPP

#include <parley/provider/anthropic_json.hpp>
#include <parley/provider/anthropic_reply.hpp>
#include <parley/provider/anthropic_request.hpp>
#include <parley/provider/anthropic_stream.hpp>

#endif

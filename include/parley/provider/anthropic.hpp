// parley/provider/anthropic.hpp: the Anthropic Messages API codec (POST /v1/messages), without
// networking: the request body, the reply and error bodies, and the events of a streamed reply.
#ifndef PARLEY_PROVIDER_ANTHROPIC_HPP
#define PARLEY_PROVIDER_ANTHROPIC_HPP

#include <parley/provider/anthropic/api.hpp>
#include <parley/provider/anthropic/common.hpp>
#include <parley/provider/anthropic/reply.hpp>
#include <parley/provider/anthropic/request.hpp>
#include <parley/provider/anthropic/stream.hpp>

#endif

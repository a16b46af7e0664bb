// parley/provider/azure.hpp: Azure OpenAI (chat completions and the Responses API over the
// OpenAI codecs, with Azure's paths, api-version, api-key and content filter errors), without
// networking.
#ifndef PARLEY_PROVIDER_AZURE_HPP
#define PARLEY_PROVIDER_AZURE_HPP

#include <parley/provider/azure/api.hpp>
#include <parley/provider/azure/common.hpp>

#endif

// `parley batch --via openai-batch|anthropic-batch`: the inputs' requests through a provider's
// batch API (parley::provider_batch) instead of N requests in flight (docs/batch.md, "Through a
// batch API"). batch_command.cpp reads the command line, the templates, the output file and the
// inputs, then hands the run over here.
#ifndef PARLEY_TOOLS_BATCH_VIA_HPP
#define PARLEY_TOOLS_BATCH_VIA_HPP

#include <parley/batch/batch_api.hpp>
#include <parley/batch/output.hpp>
#include <parley/bot/models.hpp>
#include <parley/chat/template_set.hpp>
#include <parley/provider/chat_client.hpp>

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>

namespace parley_cli {

/// What a run through a batch API needs of the command line and of what batch_main read.
struct batch_via_run {
    parley::batch_api api = parley::batch_api::openai;
    const parley::template_set* set = nullptr;
    std::string template_name;
    std::string templates_file;  ///< for messages
    std::string input;  ///< the input file
    std::string output;  ///< the output file
    parley::batch_file* out = nullptr;
    std::size_t to_run = 0;  ///< inputs the output file does not hold
    parley::client_config config;  ///< the endpoint: API, base URL, key, TLS
    std::optional<std::string> model;  ///< --model
    std::optional<std::string> fallback_model;  ///< PARLEY_MODEL
    const parley::model_catalog* catalog = nullptr;
    bool messages = false;  ///< --messages
    bool show_progress = false;
    bool cancel = false;  ///< --cancel
    std::chrono::milliseconds poll_interval{30'000};  ///< --poll-interval
    std::size_t batch_size = 0;  ///< --batch-size (0: the API's limit)
    std::optional<std::chrono::milliseconds> timeout;  ///< --timeout: each call's wait for bytes
};

/// Runs the batch (or cancels its batches); the exit status as batch_main's.
int batch_via_main(batch_via_run& run);

}  // namespace parley_cli

#endif

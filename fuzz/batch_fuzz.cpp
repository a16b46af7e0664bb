// Fuzz target: what a batch reads (parley/batch/lines.hpp, governor.hpp, batch_api.hpp,
// batch_state.hpp): the lines of an input file, the lines of an output file a run resumes from,
// the rate-limit fields of replies, and what a provider's batch API sends (batch objects, result
// files) and the state file a run through it resumes from.
//
// Input: byte 0 chooses what the rest is (bit 0: an output file rather than an input file;
// bit 1: tight limits, 64-byte lines and depth 4; bit 2: also read each line's first 200 bytes as
// the value of every rate-limit field; bit 3: also read the whole rest as a batch object and a
// results file of both batch APIs, and as a state file). The rest is split into lines as the
// readers split a file.
// Checked besides crashes, hangs and sanitizer reports: a line is an input or an error or blank,
// never two of them; every error names its line; an input's id is a string or an integer whose
// key parses back to it; an output line's key is an id's; the offsets for_each_line returns
// are line starts; the reset durations are within a day and not negative; a batch object read
// has an id fit for a path; a result with a reply has its body; a state read is written back to
// a text that reads back the same.
#include <parley/batch/batch_api.hpp>
#include <parley/batch/batch_state.hpp>
#include <parley/batch/governor.hpp>
#include <parley/batch/lines.hpp>

#include <boost/json/parse.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    const unsigned selector = data[0];
    const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
    parley::batch_line_limits limits;
    if (selector & 2) {
        limits.max_line_bytes = 64;
        limits.max_depth = 4;
        limits.max_id_bytes = 16;
    }
    const bool output = selector & 1;
    if (selector & 8) {
        for (auto api : {parley::batch_api::openai, parley::batch_api::anthropic}) {
            if (auto s = parley::read_batch_status(api, text)) {
                if (!parley::detail::batch_wire::valid_object_id(s->id)) std::abort();
                if (s->ended && api == parley::batch_api::anthropic && s->results_url.empty()) std::abort();
            } else if (s.error().code != parley::errc::protocol || s.error().message.empty()) {
                std::abort();
            }
            std::vector<parley::provider_batch_result> results;
            if (auto r = parley::read_batch_results(api, text, results)) {
                for (const auto& x : results) {
                    const bool reply = x.outcome == parley::provider_batch_result::kind::succeeded;
                    if (reply && x.body.empty()) std::abort();
                    if (reply && api == parley::batch_api::openai && (x.status < 200 || x.status > 299)) std::abort();
                }
            } else if (!r.error().message.starts_with("results line ")) {
                std::abort();
            }
        }
        try {
            const parley::provider_batch_state state = parley::read_batch_state(text, "state");
            const parley::provider_batch_state again = parley::read_batch_state(parley::batch_state_text(state), "state");
            if (again.batches.size() != state.batches.size() || parley::batch_state_text(again) != parley::batch_state_text(state))
                std::abort();
        } catch (const parley::error& e) {
            if (!std::string_view(e.what()).starts_with("state: ")) std::abort();
        }
    }
    std::size_t lines = 0;
    const std::size_t rest = parley::for_each_line(text, 1, true, [&](std::string_view line, std::size_t number) {
        ++lines;
        if (number != lines) std::abort();
        std::optional<parley::batch_line_error> failure;
        if (output) {
            auto out = parley::read_batch_output_line(line, number, "out", failure, limits);
            if (out.has_value() == failure.has_value()) std::abort();
            if (failure && !failure->message.starts_with("out:" + std::to_string(number) + ": ")) std::abort();
            if (out) {
                const auto id = boost::json::parse(out->id_key);
                std::string problem;
                if (parley::batch_id_key(id, problem, limits) != out->id_key) std::abort();
            }
        } else {
            auto in = parley::read_batch_input_line(line, number, "in", failure, limits);
            if (in && failure) std::abort();
            if (failure && !failure->message.starts_with("in:" + std::to_string(number) + ": ")) std::abort();
            if (in) {
                if (!in->data.is_object() || in->line != number) std::abort();
                if (!in->id.is_string() && !in->id.is_int64() && !in->id.is_uint64()) std::abort();
                std::string problem;
                const auto key = parley::batch_id_key(in->id, problem, limits);
                if (!key || boost::json::parse(*key) != in->id) std::abort();
            }
        }
        if (selector & 4) {
            const std::string value(line.substr(0, 200));
            if (auto d = parley::parse_reset_duration(value); d && (d->count() < 0 || *d > std::chrono::hours(24))) std::abort();
            (void)parley::parse_rfc3339(value);
            parley::http_headers h;
            for (const char* name : {"retry-after", "retry-after-ms", "x-ratelimit-remaining-requests", "x-ratelimit-reset-requests",
                                     "x-ratelimit-limit-tokens", "anthropic-ratelimit-tokens-reset",
                                     "anthropic-ratelimit-output-tokens-remaining"})
                h.add(name, value);
            const auto now = std::chrono::steady_clock::time_point(std::chrono::hours(1000));
            const auto r = parley::read_rate_limits(h, now, std::chrono::system_clock::time_point(std::chrono::hours(500000)));
            if (r.retry_after && r.retry_after->count() < 0) std::abort();
            parley::rate_governor g;
            g.observe(h, 429, now);
            if (g.admit(now) < now) std::abort();
        }
    });
    if (rest > text.size() || (rest > 0 && rest < text.size() && text[rest - 1] != '\n' && !(rest == 3 && text.starts_with("\xEF\xBB\xBF"))))
        std::abort();
    return 0;
}

// parley/batch/batch_state.hpp: the state file of a batch run through a provider's batch API: the
// batches submitted and not yet collected, each with the input ids its requests stand for (by
// custom_id), so that a run killed while the provider works resumes by batch id instead of
// submitting again. A small JSON file beside the output file, written whole and atomically (a
// new file, flushed, renamed over the old one): a crash leaves the old state or the new one.
#ifndef PARLEY_BATCH_BATCH_STATE_HPP
#define PARLEY_BATCH_BATCH_STATE_HPP

#include <parley/batch/batch_api.hpp>
#include <parley/batch/lines.hpp>
#include <parley/batch/output.hpp>
#include <parley/error.hpp>

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>

#include <cerrno>
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace parley {

/// One batch a run submitted: its id, its file of requests (OpenAI), and the input id each of
/// its custom_ids stands for.
struct provider_batch_entry {
    std::string id;
    std::string input_file_id;
    std::vector<std::pair<std::string, boost::json::value>> requests;  ///< custom_id, input id
};

/// What a run through a batch API keeps between runs: the API, its base URL and endpoint (a
/// resumed run must poll the same place), and the batches not yet collected.
struct provider_batch_state {
    batch_api api = batch_api::openai;
    std::string base_url;
    std::string endpoint;
    std::vector<provider_batch_entry> batches;
};

/// The state file of the output file `output`: `OUTPUT.batches.json` beside it.
inline std::filesystem::path batch_state_path(const std::filesystem::path& output) {
    std::filesystem::path p = output;
    p += ".batches.json";
    return p;
}

namespace detail::batch_state {

inline constexpr std::string_view format_key = "parley_batch_state";

[[noreturn]] inline void bad(const std::string& file, const std::string& what) {
    throw error(errc::invalid_argument, file + ": " + what + " (not a batch state file of parley, or damaged)");
}

inline std::string read_all(const std::string& name) {
    parley::detail::batch::descriptor in(::open(name.c_str(), O_RDONLY | O_CLOEXEC));
    if (in.fd < 0) parley::detail::batch::system_failure(errno, "cannot open " + name);
    std::string all;
    char block[1 << 16];
    for (;;) {
        const ssize_t n = ::read(in.fd, block, sizeof block);
        if (n < 0) {
            if (errno == EINTR) continue;
            parley::detail::batch::system_failure(errno, "cannot read " + name);
        }
        if (n == 0) break;
        all.append(block, static_cast<std::size_t>(n));
        if (all.size() > (1u << 30)) bad(name, "the file is larger than 1 GiB");
    }
    return all;
}

}  // namespace detail::batch_state

/// The state in the JSON text `text` (of the file `file`, named in messages). Throws
/// parley::error (errc::invalid_argument) naming what is wrong.
inline provider_batch_state read_batch_state(std::string_view text, const std::string& file) {
    namespace ds = detail::batch_state;
    boost::json::parse_options po;
    po.max_depth = 16;
    boost::system::error_code ec;
    const boost::json::value v = boost::json::parse(text, ec, {}, po);
    if (ec) ds::bad(file, "not JSON (" + ec.message() + ")");
    if (!v.is_object()) ds::bad(file, "expected a JSON object");
    const auto& o = v.get_object();
    const auto* format = o.if_contains(ds::format_key);
    if (!format || *format != 1) ds::bad(file, "expected \"parley_batch_state\": 1");
    provider_batch_state s;
    const auto* via = o.if_contains("via");
    const auto api = via && via->is_string() ? batch_api_from_name(via->get_string()) : std::nullopt;
    if (!api) ds::bad(file, "\"via\" must be \"openai-batch\" or \"anthropic-batch\"");
    s.api = *api;
    auto text_of = [&](const boost::json::object& from, std::string_view key, const std::string& where) {
        const auto* t = from.if_contains(key);
        if (!t || !t->is_string()) ds::bad(file, where + std::string(key) + " must be a string");
        return std::string(t->get_string());
    };
    s.base_url = text_of(o, "base_url", "");
    s.endpoint = text_of(o, "endpoint", "");
    const auto* batches = o.if_contains("batches");
    if (!batches || !batches->is_array()) ds::bad(file, "\"batches\" must be an array");
    std::unordered_set<std::string> ids;
    for (std::size_t i = 0; i < batches->get_array().size(); ++i) {
        const std::string where = "batches[" + std::to_string(i) + "].";
        const auto& b = batches->get_array()[i];
        if (!b.is_object()) ds::bad(file, where.substr(0, where.size() - 1) + " must be an object");
        provider_batch_entry e;
        e.id = text_of(b.get_object(), "id", where);
        if (!detail::batch_wire::valid_object_id(e.id)) ds::bad(file, where + "id is not a batch id");
        if (const auto* f = b.get_object().if_contains("input_file_id"); f && f->is_string()) e.input_file_id = f->get_string();
        const auto* requests = b.get_object().if_contains("requests");
        if (!requests || !requests->is_object()) ds::bad(file, where + "requests must be an object of custom_id: input id");
        for (const auto& [custom_id, id] : requests->get_object()) {
            std::string problem;
            if (!valid_custom_id(custom_id)) ds::bad(file, where + "requests: " + std::string(custom_id) + " is not a custom_id");
            if (!batch_id_key(id, problem)) ds::bad(file, where + "requests." + std::string(custom_id) + ": " + problem);
            e.requests.emplace_back(std::string(custom_id), id);
        }
        if (!ids.insert(e.id).second) ds::bad(file, where + "id: the batch " + e.id + " is listed twice");
        s.batches.push_back(std::move(e));
    }
    return s;
}

/// The JSON text of a state.
inline std::string batch_state_text(const provider_batch_state& s) {
    boost::json::object o;
    o[detail::batch_state::format_key] = 1;
    o["via"] = batch_api_name(s.api);
    o["base_url"] = s.base_url;
    o["endpoint"] = s.endpoint;
    boost::json::array batches;
    for (const auto& b : s.batches) {
        boost::json::object bo;
        bo["id"] = b.id;
        if (!b.input_file_id.empty()) bo["input_file_id"] = b.input_file_id;
        boost::json::object requests;
        requests.reserve(b.requests.size());
        for (const auto& [custom_id, id] : b.requests) requests[custom_id] = id;
        bo["requests"] = std::move(requests);
        batches.push_back(std::move(bo));
    }
    o["batches"] = std::move(batches);
    return boost::json::serialize(o) + "\n";
}

/// The state file at `path`, or nothing when there is none. Throws parley::error: a system error
/// when it cannot be read, errc::invalid_argument when it is not a state file.
inline std::optional<provider_batch_state> load_batch_state(const std::filesystem::path& path) {
    const std::string name = path.string();
    struct stat st {};
    if (::stat(name.c_str(), &st) != 0) {
        if (errno == ENOENT) return std::nullopt;
        detail::batch::system_failure(errno, "cannot read " + name);
    }
    return read_batch_state(detail::batch_state::read_all(name), name);
}

/// Writes the state to `path` atomically: a new file beside it (PATH.parley-tmp), flushed to
/// disk, renamed over it. A state without batches removes the file instead. Throws
/// parley::error (a system error code) when it cannot.
inline void save_batch_state(const std::filesystem::path& path, const provider_batch_state& s) {
    namespace db = detail::batch;
    const std::string name = path.string();
    if (s.batches.empty()) {
        if (::unlink(name.c_str()) != 0 && errno != ENOENT) db::system_failure(errno, "cannot remove " + name);
        return;
    }
    const std::string temp = name + ".parley-tmp";
    db::descriptor out(::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666));
    if (out.fd < 0) db::system_failure(errno, "cannot create " + temp);
    try {
        db::append_all(out.fd, batch_state_text(s), temp);
        if (::fsync(out.fd) != 0) db::system_failure(errno, "cannot flush " + temp + " to disk");
        if (::rename(temp.c_str(), name.c_str()) != 0) db::system_failure(errno, "cannot rename " + temp + " over " + name);
    } catch (...) {
        ::unlink(temp.c_str());
        throw;
    }
}

}  // namespace parley

#endif

// parley/schema/detail/reader_state.hpp: the state of from_json's reader: where it is (a JSON
// pointer kept as segments), the problems found so far, and the limits on depth and work.
#ifndef PARLEY_SCHEMA_DETAIL_READER_STATE_HPP
#define PARLEY_SCHEMA_DETAIL_READER_STATE_HPP

#include <parley/config.hpp>
#include <parley/schema/detail/conversion.hpp>
#include <parley/schema/from_json_result.hpp>

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace parley::detail::conv {

// One step of the path to the value being read: a member name or an array index.
struct segment {
    std::string_view key;
    std::size_t index;
    bool is_index;
};

struct reader {
    const from_json_options& options;
    std::size_t& steps;  // shared with the readers that try variant alternatives
    std::string base;  // the JSON pointer where this reader starts
    std::vector<json_problem> errors;
    std::vector<json_problem> warnings;
    std::size_t omitted = 0;
    std::size_t depth = 0;
    bool exact = false;  // no integer for a float, no 3.0 for an integer, no unknown member
    bool stop_at_first = false;  // only whether the value fits matters
    bool aborted = false;  // a limit was reached
    std::vector<segment> segments{};  // below `base`; made into text only for a problem

    /// The JSON pointer of the value being read.
    std::string path() const {
        std::string p = base;
        for (const segment& s : segments) {
            if (s.is_index)
                append_segment(p, s.index);
            else
                append_segment(p, s.key);
        }
        return p;
    }

    bool failed() const { return !errors.empty() || omitted != 0; }
    bool done() const { return aborted || (stop_at_first && failed()); }

    void error(json_problem_kind kind, std::string expected, std::string found, std::string detail = {}) {
        if (errors.size() < options.max_problems)
            errors.push_back({kind, path(), std::move(expected), std::move(found), std::move(detail)});
        else
            ++omitted;
    }
    void warning(json_problem_kind kind, std::string expected, std::string found) {
        if (warnings.size() < options.max_problems)
            warnings.push_back({kind, path(), std::move(expected), std::move(found), {}});
    }
    void limit(std::string expected, std::string found) {
        error(json_problem_kind::limit, std::move(expected), std::move(found));
        aborted = true;
    }

    // Counts one visited value; false (with a limit error) once the budget is spent.
    bool step() {
        if (aborted) return false;
        if (++steps > options.max_steps) {
            limit("a value read within " + std::to_string(options.max_steps) + " steps", "a value that needs more");
            return false;
        }
        return true;
    }
    // Enters an array or object; false (with a limit error) when that is too deep.
    bool enter() {
        if (++depth > options.max_depth) {
            limit("values nested at most " + std::to_string(options.max_depth) + " deep", "deeper nesting");
            return false;
        }
        return true;
    }
};

// Enters a member or item of the value being read, and leaves it. A member name must outlive
// the segment (names of described members and keys of the JSON value being read do).
struct path_segment {
    reader& r;
    path_segment(reader& rd, std::string_view key) : r(rd) { r.segments.push_back({key, 0, false}); }
    path_segment(reader& rd, std::size_t index) : r(rd) { r.segments.push_back({{}, index, true}); }
    ~path_segment() { r.segments.pop_back(); }
    path_segment(const path_segment&) = delete;
    path_segment& operator=(const path_segment&) = delete;
};

// Leaves an array or object.
struct depth_guard {
    reader& r;
    ~depth_guard() { --r.depth; }
};

}  // namespace parley::detail::conv

#endif

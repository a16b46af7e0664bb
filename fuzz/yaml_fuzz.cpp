// Fuzz target: YAML files from outside (parley/chat/yaml.hpp).
//
// Input: byte 0 chooses what the rest is read as (bit 0: a template set, or a single template)
// and whether a template set that loads is dumped and loaded again (bit 1), which must give an
// equal set (dump_yaml's contract). A yaml_error or template_error is an expected outcome; any
// other exception, a crash, a hang or a sanitizer report is a finding.
#include <parley/chat/yaml.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 1) return 0;
    const bool single = (data[0] & 1) != 0;
    const bool round_trip = (data[0] & 2) != 0;
    const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
    try {
        if (single) {
            const parley::conversation_template t = parley::load_template(text, "fuzz", "fuzz.yaml");
            const std::string dumped = parley::dump_yaml(t);
            if (round_trip) {
                const parley::conversation_template again = parley::load_template(dumped, "fuzz", "dumped.yaml");
                if (!(again == t)) std::abort();
            }
        } else {
            const parley::template_set set = parley::load_template_set(text, "fuzz.yaml");
            const std::string dumped = parley::dump_yaml(set);
            if (round_trip) {
                const parley::template_set again = parley::load_template_set(dumped, "dumped.yaml");
                if (!(again == set)) std::abort();
            }
        }
    } catch (const parley::yaml_error&) {
    } catch (const parley::template_error&) {
    }
    return 0;
}

// `parley tokens`: exact token counts (and ids) of texts with a tiktoken rank file or a Hugging
// Face tokenizer.
#include "cli_options.hpp"
#include "commands.hpp"

#include <parley/tokens/chat_template.hpp>
#include <parley/tokens/openai.hpp>
#include <parley/tokens/tokenizer.hpp>

#include <boost/json.hpp>

#include <cstdio>
#include <iostream>
#include <iterator>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace parley_cli {

const char* const tokens_usage =
    "usage: parley tokens (--tiktoken FILE.tiktoken | --tokenizer PATH) [--ids] [--special recognized|text|refused]\n"
    "                     [--add-special-tokens] [FILE|-]\n"
    "       parley tokens (--tiktoken FILE.tiktoken | --tokenizer PATH) --batch\n"
    "       parley tokens (--tiktoken FILE.tiktoken | --tokenizer MODEL_DIR) --chat CONVERSATION.json [--tools FUNCTIONS.json]\n"
    "\n"
    "Prints the number of tokens of the text of FILE (standard input when FILE is - or missing).\n"
    "  --tiktoken FILE     an OpenAI rank file; its name gives the encoding: o200k_base.tiktoken,\n"
    "                      cl100k_base.tiktoken or o200k_harmony.tiktoken\n"
    "  --tokenizer PATH    a Hugging Face tokenizer.json, or a model folder holding one\n"
    "  --ids               print the ids, on one line separated by spaces, instead of the count\n"
    "  --special MODE      text spelling a special token: recognized (the default: one id), text\n"
    "                      (ordinary text) or refused (an error)\n"
    "  --add-special-tokens  add the tokens the tokenizer puts around a text (Llama 2's <s>...)\n"
    "  --batch             read JSON lines from standard input and write one line for each, in order:\n"
    "                        {\"text\": T}  ->  {\"count\": N, \"ids\": [...]} or {\"error\": ...}\n"
    "                        {\"ids\": [...]}  ->  {\"text\": T} (or {\"bytes\": HEX} when the bytes\n"
    "                        are not UTF-8) or {\"error\": ...}\n"
    "                      a line may also set \"special\", \"add_special_tokens\" (with \"text\") and\n"
    "                      \"skip_special_tokens\" (with \"ids\")\n"
    "  --chat FILE         count a conversation (a JSON array of messages, OpenAI's wire format) as a\n"
    "                      request: with --tiktoken, OpenAI's framing of messages and images; with\n"
    "                      --tokenizer MODEL_DIR, the folder's chat template (tokenizer_config.json)\n"
    "                      rendered with add_generation_prompt, and its text counted\n"
    "  --tools FILE        with --chat: function definitions sent with it (a JSON array of\n"
    "                      {\"name\", \"description\", \"parameters\"})\n"
    "  --render            with --chat and --tokenizer: print the rendered text instead of the count\n";

namespace {

parley::tokens::special_tokens special_mode(const std::string& name) {
    if (name == "recognized") return parley::tokens::special_tokens::recognized;
    if (name == "text") return parley::tokens::special_tokens::as_text;
    if (name == "refused") return parley::tokens::special_tokens::refused;
    throw usage_error("--special must be recognized, text or refused, not " + name);
}

std::string hex(std::string_view bytes) {
    static const char* digits = "0123456789abcdef";
    std::string out;
    for (unsigned char c : bytes) {
        out += digits[c >> 4];
        out += digits[c & 15];
    }
    return out;
}

boost::json::object batch_line(const parley::tokens::tokenizer& tok, const std::string& line) {
    boost::json::object result;
    try {
        boost::json::value v = boost::json::parse(line);
        if (!v.is_object()) throw std::runtime_error("expected a JSON object {\"text\": ...} or {\"ids\": [...]}");
        const boost::json::object& in = v.as_object();
        if (const auto* text = in.if_contains("text")) {
            if (!text->is_string()) throw std::runtime_error("\"text\" must be a string");
            parley::tokens::encode_options options;
            if (const auto* s = in.if_contains("special"); s && s->is_string()) options.special = special_mode(std::string(s->get_string()));
            if (const auto* a = in.if_contains("add_special_tokens"); a && a->is_bool()) options.add_special_tokens = a->get_bool();
            const auto ids = tok.encode(std::string_view(text->get_string()), options);
            result["count"] = ids.size();
            boost::json::array out;
            out.reserve(ids.size());
            for (auto id : ids) out.emplace_back(id);
            result["ids"] = std::move(out);
        } else if (const auto* ids = in.if_contains("ids")) {
            if (!ids->is_array()) throw std::runtime_error("\"ids\" must be an array of integers");
            std::vector<parley::tokens::token_id> list;
            for (const auto& id : ids->get_array()) {
                if (!id.is_int64() || id.get_int64() < 0 || id.get_int64() > 0xffffffffll)
                    throw std::runtime_error("\"ids\" must be an array of non-negative integers");
                list.push_back(static_cast<parley::tokens::token_id>(id.get_int64()));
            }
            parley::tokens::decode_options options;
            if (const auto* s = in.if_contains("skip_special_tokens"); s && s->is_bool()) options.skip_special_tokens = s->get_bool();
            const std::string text = tok.decode(list, options);
            if (parley::tokens::detail::invalid_utf8_offset(text) == std::string_view::npos) result["text"] = text;
            else result["bytes"] = hex(text);
        } else {
            throw std::runtime_error("expected a JSON object {\"text\": ...} or {\"ids\": [...]}");
        }
    } catch (const std::exception& e) {
        result = boost::json::object{{"error", e.what()}};
    }
    return result;
}

/// `--chat`: the tokens of a conversation as a request.
int chat_count(const std::optional<std::string>& tiktoken_file, const std::optional<std::string>& model_dir, const std::string& chat_file,
               const std::optional<std::string>& tools_file, bool render) {
    try {
        const std::vector<parley::message> messages = read_history(chat_file);
        std::vector<parley::function_definition> functions;
        if (tools_file) {
            const boost::json::value v = read_json(*tools_file);
            if (!v.is_array()) throw std::runtime_error(*tools_file + ": expected a JSON array of function definitions");
            for (const auto& f : v.as_array()) {
                if (!f.is_object() || !f.as_object().if_contains("name") || !f.as_object().at("name").is_string())
                    throw std::runtime_error(*tools_file + ": expected {\"name\", \"description\", \"parameters\"} objects");
                parley::function_definition d;
                d.name = std::string(f.as_object().at("name").as_string());
                if (const auto* desc = f.as_object().if_contains("description"); desc && desc->is_string()) d.description = std::string(desc->as_string());
                if (const auto* p = f.as_object().if_contains("parameters"); p && p->is_object()) d.parameters = p->as_object();
                functions.push_back(std::move(d));
            }
        }
        if (tiktoken_file) {
            if (render) throw std::runtime_error("--render needs --tokenizer MODEL_DIR (OpenAI's chat format is not published as text)");
            const auto tok = parley::tokens::tokenizer::load(*tiktoken_file);
            std::size_t n = parley::tokens::openai_tokens_per_request;
            for (const auto& m : messages) n += parley::tokens::openai_message_tokens(tok, m);
            for (const auto& f : functions) n += parley::tokens::openai_function_tokens(tok, f);
            std::cout << n << '\n';
            return 0;
        }
        const auto counter = parley::tokens::chat_template_counter::load(*model_dir);
        if (render) {
            const std::string text = counter.render(messages, functions);
            std::fwrite(text.data(), 1, text.size(), stdout);
        } else {
            std::cout << counter.count(messages, functions) << '\n';
        }
        return 0;
    } catch (const std::exception& e) {
        std::cerr << "error: " << e.what() << "\n";
        return 1;
    }
}

}  // namespace

int tokens_main(const std::vector<std::string>& args) {
    std::optional<std::string> tiktoken_file, tokenizer_path, special, chat_file, tools_file;
    bool ids = false, batch = false, add_special = false, render = false;
    std::vector<std::string> files;
    parley::tokens::encode_options options;
    try {
        auto words = option_list()
                         .value("--tiktoken", tiktoken_file)
                         .value("--tokenizer", tokenizer_path)
                         .value("--special", special)
                         .flag("--ids", ids)
                         .flag("--batch", batch)
                         .flag("--add-special-tokens", add_special)
                         .value("--chat", chat_file)
                         .value("--tools", tools_file)
                         .flag("--render", render)
                         .parse(args);
        if (!words) {
            std::cout << tokens_usage;
            return 0;
        }
        files = std::move(*words);
        if (tiktoken_file.has_value() == tokenizer_path.has_value())
            throw usage_error("give one of --tiktoken FILE.tiktoken and --tokenizer PATH");
        if (files.size() > 1 || (batch && !files.empty())) throw usage_error("too many arguments");
        if (special) options.special = special_mode(*special);
        options.add_special_tokens = add_special;
    } catch (const usage_error& e) {
        std::cerr << "error: " << e.what() << "\n" << tokens_usage;
        return 2;
    }
    if (chat_file) return chat_count(tiktoken_file, tokenizer_path, *chat_file, tools_file, render);
    std::optional<parley::tokens::tokenizer> tok;
    try {
        if (tiktoken_file) {
            if (std::filesystem::path(*tiktoken_file).extension() != ".tiktoken")
                throw std::runtime_error(*tiktoken_file + ": --tiktoken takes a .tiktoken file");
            tok = parley::tokens::tokenizer::load(*tiktoken_file);
        } else {
            tok = parley::tokens::tokenizer::load(*tokenizer_path);
        }
    } catch (const std::exception& e) {
        std::cerr << "error: " << e.what() << "\n";
        return 1;
    }
    if (batch) {
        std::string line;
        while (std::getline(std::cin, line)) {
            if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
            std::cout << boost::json::serialize(batch_line(*tok, line)) << '\n';
            std::cout.flush();
        }
        return 0;
    }
    try {
        std::string text;
        if (files.empty() || files[0] == "-") text.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
        else text = read_text(files[0]);
        if (!ids) {
            std::cout << tok->count(text, options) << '\n';
            return 0;
        }
        const auto list = tok->encode(text, options);
        std::string out;
        for (std::size_t i = 0; i < list.size(); ++i) {
            if (i) out += ' ';
            out += std::to_string(list[i]);
        }
        out += '\n';
        std::fwrite(out.data(), 1, out.size(), stdout);
        return 0;
    } catch (const std::exception& e) {
        std::cerr << "error: " << e.what() << "\n";
        return 1;
    }
}

}  // namespace parley_cli

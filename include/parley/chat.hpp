// parley/chat.hpp: the chat model layer (messages, request parameters, conversation templates
// and template sets and their constexpr builders, JSON (de)serialisation, history files,
// rendering). The YAML loader is apart, in parley/chat/yaml.hpp, as it is the only header that
// needs yaml-cpp.
#ifndef PARLEY_CHAT_HPP
#define PARLEY_CHAT_HPP

#include <parley/chat/builder.hpp>
#include <parley/chat/command_prompt.hpp>
#include <parley/chat/conversation_template.hpp>
#include <parley/chat/dialogue.hpp>
#include <parley/chat/history_file.hpp>
#include <parley/chat/json.hpp>
#include <parley/chat/message.hpp>
#include <parley/chat/pretty_json.hpp>
#include <parley/chat/render.hpp>
#include <parley/chat/request.hpp>
#include <parley/chat/rules.hpp>
#include <parley/chat/template_set.hpp>
#include <parley/chat/view.hpp>

#endif

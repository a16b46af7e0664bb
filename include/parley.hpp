// parley.hpp: everything parley offers.
#ifndef PARLEY_HPP
#define PARLEY_HPP

#include <parley/config.hpp>
#include <parley/error.hpp>
#include <parley/fixed_string.hpp>
#include <parley/string_list.hpp>
#include <parley/batch.hpp>
#include <parley/bot.hpp>
#include <parley/chat.hpp>
#include <parley/jinja.hpp>
#include <parley/schema.hpp>
#include <parley/tokens.hpp>

#endif

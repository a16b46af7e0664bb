// parley/jinja/detail/pystr.hpp: Python 3.11 str algorithms on UTF-8 text.
//
// Every function here gives the answer CPython 3.11 gives for the same text, so that templates
// render byte for byte as Python Jinja2 renders them. Text is UTF-8; indexes and lengths that
// Python counts in code points are counted in code points here too. Invalid UTF-8 never throws:
// each byte that does not start a valid sequence is one unit that behaves like U+FFFD (no case,
// not a space, not a letter), and functions that copy text copy such bytes through unchanged.
//
// The algorithms are in parley/jinja/detail/py/, one concept per file, each including the one
// before: utf8, chars, case, repr, split, textwrap, html, truncate.
#ifndef PARLEY_JINJA_DETAIL_PYSTR_HPP
#define PARLEY_JINJA_DETAIL_PYSTR_HPP

#include <parley/jinja/detail/py/truncate.hpp>

#endif

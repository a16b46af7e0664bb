// context=test: a block written as part of a test file of tests/ (doctest's CHECK, ...).
#include <doctest/doctest.h>

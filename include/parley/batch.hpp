// parley/batch.hpp: batch runs: many inputs through a model endpoint, N at once, with a shared
// rate-limit governor, retries, one output line per input and resumption (docs/batch.md). Needs
// nothing beyond parley::parley; the work of the inputs brings its own client (parley::net).
#ifndef PARLEY_BATCH_HPP
#define PARLEY_BATCH_HPP

#include <parley/batch/governor.hpp>
#include <parley/batch/lines.hpp>
#include <parley/batch/model.hpp>
#include <parley/batch/output.hpp>
#include <parley/batch/runner.hpp>

#endif

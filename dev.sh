#!/usr/bin/env bash
# Developer entry points for parley on Debian 12 or 13 (and on other Debian-based distributions,
# with Debian 13's package names: a name one lacks is reported before anything is installed).
#   ./dev.sh demo   install what is missing, build and run the travel assistant (examples/assistant)
#   ./dev.sh test   install what is missing, then build and test with g++, and with clang++ under
#                   AddressSanitizer and UndefinedBehaviorSanitizer (fuzz targets included)
#   ./dev.sh gcc       only the first half of test: the gcc preset
#   ./dev.sh deps      only install what is missing
#   ./dev.sh sanitize  only the second half of test: the clang-asan preset
# PARLEY_CONFIGURE_ARGS: more CMake arguments for every configure, separated by spaces, given last
# so that they override dev.sh's own (as .ci/run's Debian 13 phase uses: -DPARLEY_BUILD_BENCHMARKS=OFF
# -DPARLEY_BUILD_EXAMPLES=OFF ...).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")"

# The packages parley needs to build and test. Boost (1.81 or later), and clang's runtime for
# the sanitizers and libFuzzer, have other names on each distribution (distribution_packages).
# Never libboost-all-dev or libboost1.81-all-dev: they pull in MPI (and on Debian 12 conflict with
# Boost 1.74).
packages=(
    cmake ninja-build g++ clang
    doctest-dev libbenchmark-dev libyaml-cpp-dev libssl-dev
    python3 python3-jinja2 python3-jsonschema python3-yaml
    ccache mold pkgconf
)

# Adds the distribution's names of Boost and of clang's runtime to `packages`, from
# /etc/os-release: Debian 12's default Boost is 1.74, too old, so its 1.81 packages; from
# Debian 13 on (and on the distributions that follow its names) the defaults, Boost 1.83 and
# clang 19's runtime.
distribution_packages() {
    local id="" version_id="" like=""
    if [[ -r /etc/os-release ]]; then
        # shellcheck disable=SC1091
        id=$(. /etc/os-release && echo "${ID:-}")
        version_id=$(. /etc/os-release && echo "${VERSION_ID:-}")
        like=$(. /etc/os-release && echo "${ID_LIKE:-}")
    fi
    # Node.js and npm for the tests' npm packages (install_node_peers), unless this machine has them
    if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
        packages+=(nodejs npm)
    fi
    if [[ $id == debian && $version_id == 12 ]]; then
        packages+=(libboost1.81-dev libboost-json1.81-dev libclang-rt-14-dev)
    elif [[ $id == debian || $like == *debian* ]]; then
        packages+=(libboost-dev libboost-json-dev libclang-rt-dev)
    else
        echo "error: dev.sh installs Debian packages; this system is '${id:-unknown}'. Install the" >&2
        echo "       equivalents of: ${packages[*]} boost (1.81 or later, with Boost.JSON)" >&2
        echo "       and clang's runtime libraries, then build with the presets (README.md)." >&2
        exit 1
    fi
}

usage() {
    echo "usage: $0 demo|test|gcc|sanitize|deps" >&2
    echo "  demo  build and run the travel assistant of examples/assistant (offline unless OPENAI_BASE_URL" >&2
    echo "        or OPENAI_API_KEY is set)" >&2
    echo "  test  build and run every test with the gcc preset, then with the clang-asan preset" >&2
    echo "        (clang++, AddressSanitizer and UndefinedBehaviorSanitizer, and a short run of" >&2
    echo "        every fuzz target)" >&2
    echo "  gcc   only the gcc half of test" >&2
    echo "  sanitize  only the clang-asan half of test" >&2
    echo "  deps  only install the Debian packages that are missing" >&2
}

install_missing_packages() {
    local missing=() package status
    for package in "${packages[@]}"; do
        status=$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null || true)
        if [[ $status != "install ok installed" ]]; then
            missing+=("$package")
        fi
    done
    if ((${#missing[@]} == 0)); then
        return 0
    fi

    local sudo=()
    if ((EUID != 0)); then
        if command -v sudo >/dev/null 2>&1; then
            sudo=(sudo)
        else
            echo "error: missing Debian packages: ${missing[*]}" >&2
            echo "       installing them needs root, and sudo is not available;" >&2
            echo "       run as root: apt-get install ${missing[*]}" >&2
            exit 1
        fi
    fi
    echo "Installing missing packages: ${missing[*]}"
    if ! "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update; then
        echo "error: apt-get update failed" >&2
        exit 1
    fi
    # A name this distribution does not have: say which, rather than apt-get's "unable to locate".
    local unknown=()
    for package in "${missing[@]}"; do
        if ! apt-cache show "$package" >/dev/null 2>&1; then
            unknown+=("$package")
        fi
    done
    if ((${#unknown[@]} > 0)); then
        echo "error: $(. /etc/os-release && echo "${PRETTY_NAME:-this system}") has no package named: ${unknown[*]}" >&2
        echo "       (dev.sh picks Debian 12's names there, Debian 13's elsewhere); install their" >&2
        echo "       equivalents by hand, then run dev.sh again" >&2
        exit 1
    fi
    if ! "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}"; then
        echo "error: could not install: ${missing[*]}" >&2
        exit 1
    fi
}

# The npm packages some tests run against (real peers: the reference MCP server, the official
# OpenAI and Anthropic SDKs...): each folder tests/DIR given (mcp, peers/sdk) with a package.json
# and its package-lock.json is installed with `npm ci` into .cache/node-peers/NAME (NAME: the
# folder's last name), a cache folder made here, and again only when its lock file changes. A
# missing peer fails the run: the tests need them.
node_peers=.cache/node-peers
install_node_peers() {
    local name
    if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
        echo "error: node and npm are needed for the tests' npm packages (tests/*/package.json)" >&2
        exit 1
    fi
    for name in "$@"; do
        local from=tests/$name to=$node_peers/${name##*/}
        mkdir -p "$to"
        if [[ ! -d $to/node_modules ]] || ! cmp -s "$from/package-lock.json" "$to/package-lock.json"; then
            echo "Installing the npm packages of $from into $to"
            cp "$from/package.json" "$from/package-lock.json" "$to/"
            if ! (cd "$to" && npm ci --no-audit --no-fund); then
                rm -f "$to/package-lock.json"
                echo "error: npm could not install the packages of $from/package.json" >&2
                exit 1
            fi
        fi
    done
}

# The Python the tests run. The differential tests compare with Python Jinja2 as run by CPython
# 3.11 with Jinja2 3.1.6 and MarkupSafe 3.0 (tests/harness/reference_python.py), and the schema
# tests need jsonschema: the first of python3 and python3.11 on PATH and /usr/bin/python3 that is
# that reference and has jsonschema; otherwise the first that has Jinja2 and jsonschema (the
# differential tests then fail, naming what they need and what they found: said here first).
python=""
choose_python() {
    local candidates=() c
    for c in "$(command -v python3 || true)" "$(command -v python3.11 || true)" /usr/bin/python3; do
        if [[ -n $c && -x $c ]]; then
            candidates+=("$c")
        fi
    done
    for c in "${candidates[@]}"; do
        if "$c" tests/harness/reference_python.py >/dev/null 2>&1 && "$c" -c 'import jsonschema' >/dev/null 2>&1; then
            python=$c
            return 0
        fi
    done
    for c in "${candidates[@]}"; do
        if "$c" -c 'import jinja2, jsonschema' >/dev/null 2>&1; then
            python=$c
            break
        fi
    done
    python=${python:-${candidates[0]:-python3}}
    if [[ ${1:-} == warn ]]; then
        echo "warning: no python3 or python3.11 on PATH is the differential tests' reference:" >&2
        "$python" tests/harness/reference_python.py >&2 || true
    fi
}

# Extra configure arguments shared by both presets.
configure_args=()
set_configure_args() {
    choose_python "${1:-}"
    configure_args+=("-DPython3_EXECUTABLE=$python")
    if [[ -n ${PARLEY_SHARED_DIR:-} ]]; then
        configure_args+=("-DPARLEY_SHARED_DIR=$PARLEY_SHARED_DIR")
    fi
    configure_args+=("-DPARLEY_NODE_PEERS=$PWD/$node_peers")
    read -r -a extra_args <<<"${PARLEY_CONFIGURE_ARGS:-}"
}
# PARLEY_CONFIGURE_ARGS, split at spaces: given last, so that they override dev.sh's own.
extra_args=()

# The travel assistant: a YAML template set run by parley::bot with two C++ functions, a template
# switch and extract<itinerary>; offline against the fake model server unless OPENAI_BASE_URL or
# OPENAI_API_KEY is set.
demo() {
    cmake --preset gcc "${configure_args[@]}" -DPARLEY_BUILD_EXAMPLES=ON "${extra_args[@]}"
    cmake --build --preset gcc --target parley-example-assistant
    echo
    echo "\$ build/gcc/examples/assistant/assistant"
    build/gcc/examples/assistant/assistant
}

# Configures, builds and tests one preset; returns nonzero at the first step that fails.
# (Called from an `if`, where set -e does not apply, hence the explicit returns.)
test_preset() {
    local preset=$1 args=("${configure_args[@]}" -DPARLEY_UNITY_TESTS=ON)
    if [[ $preset != clang-asan ]]; then
        # Without debug information: the same -O2 code and warnings, a quarter less compile time;
        # and the test binaries at -O0, half the compile time of -O2 (parley's programs, which the
        # differential tests run, the run-time template engine the tests link, and the examples
        # and benchmarks stay at -O2).
        # (clang-asan has its own flags: -O0 without debug information.)
        args+=("-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -DNDEBUG" "-DPARLEY_TEST_COMPILE_OPTIONS=-O0")
    fi
    if [[ $preset == gcc ]]; then
        # g++ collects its garbage once its heap passes 1 GB rather than 128 MB: parley's
        # translation units are mostly front end (templates, constant evaluation), whose
        # collections g++ repeats over a heap of hundreds of MB. 10 to 20% less compile time
        # for them, at up to 1.4 GB per compiler instead of 1.1.
        args+=("-DCMAKE_CXX_FLAGS=--param=ggc-min-heapsize=1048576")
    fi
    args+=("${extra_args[@]}")
    echo "=== $preset: configure"
    cmake --preset "$preset" "${args[@]}" || return 1
    echo "=== $preset: build"
    cmake --build --preset "$preset" || return 1
    echo "=== $preset: test"
    ctest --preset "$preset" -j2 || return 1
}

# run_tests PRESET...: each preset in turn, then whether all passed.
run_tests() {
    local preset failed=() passed=()
    for preset in "$@"; do
        if test_preset "$preset"; then
            passed+=("$preset")
        else
            failed+=("$preset")
        fi
    done
    if ((${#failed[@]} == 0)); then
        echo "dev.sh test: PASSED (${passed[*]})"
    else
        echo "dev.sh test: FAILED (${failed[*]})${passed:+; passed: ${passed[*]}}"
        return 1
    fi
}

case "${1:-}" in
    demo)
        distribution_packages
        install_missing_packages
        set_configure_args
        demo
        ;;
    test)
        distribution_packages
        install_missing_packages
        install_node_peers mcp tokens peers/sdk
        set_configure_args warn
        run_tests gcc clang-asan
        ;;
    gcc)
        distribution_packages
        install_missing_packages
        install_node_peers mcp tokens peers/sdk
        set_configure_args warn
        run_tests gcc
        ;;
    sanitize)
        distribution_packages
        install_missing_packages
        install_node_peers mcp tokens peers/sdk
        set_configure_args warn
        run_tests clang-asan
        ;;
    deps)
        distribution_packages
        install_missing_packages
        ;;
    *)
        usage
        exit 2
        ;;
esac

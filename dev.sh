#!/usr/bin/env bash
# Developer entry points for parley on Debian 12.
#   ./dev.sh demo   install what is missing, build and run the travel assistant (examples/assistant)
#   ./dev.sh test   install what is missing, then build and test with g++, and with clang++ under
#                   AddressSanitizer and UndefinedBehaviorSanitizer (fuzz targets included)
#   ./dev.sh sanitize  only the second half of test: the clang-asan preset
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")"

# Debian 12 packages parley needs to build and test. Never libboost-all-dev or
# libboost1.81-all-dev: they pull in MPI and conflict with Boost 1.74.
packages=(
    cmake ninja-build g++ clang
    libboost1.81-dev libboost-json1.81-dev
    doctest-dev libbenchmark-dev libyaml-cpp-dev libssl-dev
    python3 python3-jinja2 python3-jsonschema
    ccache mold
    libclang-rt-14-dev
)

usage() {
    echo "usage: $0 demo|test|sanitize" >&2
    echo "  demo  build and run the travel assistant of examples/assistant (offline unless OPENAI_BASE_URL" >&2
    echo "        or OPENAI_API_KEY is set)" >&2
    echo "  test  build and run every test with the gcc preset, then with the clang-asan preset" >&2
    echo "        (clang++, AddressSanitizer and UndefinedBehaviorSanitizer, and a short run of" >&2
    echo "        every fuzz target)" >&2
    echo "  sanitize  only the clang-asan half of test" >&2
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
    if ! "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update \
        || ! "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}"; then
        echo "error: could not install: ${missing[*]}" >&2
        exit 1
    fi
}

# The npm packages tests run against (a real peer, not a guess): each folder tests/peers/NAME
# holds a package.json with exact versions and its package-lock.json; `npm ci` installs the set
# into .cache/peers/NAME, a cache folder made here, and again only when its lock file changes.
# A set that does not install fails the run: the tests need them.
npm_peers=.cache/peers
install_npm_peers() {
    if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
        echo "error: node and npm are needed for the npm packages the tests run against (tests/peers/)" >&2
        exit 1
    fi
    local dir name target
    for dir in tests/peers/*/; do
        name=$(basename "$dir")
        target=$npm_peers/$name
        mkdir -p "$target"
        if [[ ! -d $target/node_modules ]] || ! cmp -s "$dir/package-lock.json" "$target/package-lock.json"; then
            echo "Installing the npm packages of tests/peers/$name into $target"
            cp "$dir/package.json" "$dir/package-lock.json" "$target/"
            if ! (cd "$target" && npm ci --no-audit --no-fund); then
                rm -f "$target/package-lock.json"
                echo "error: npm could not install the packages of tests/peers/$name/package.json" >&2
                exit 1
            fi
        fi
    done
}

# Extra configure arguments shared by both presets.
configure_args=()
set_configure_args() {
    # The differential tests need Jinja2 and jsonschema; the python3 on PATH (pyenv, venv) may lack
    # them while Debian's does not.
    if python3 -c 'import jinja2, jsonschema' >/dev/null 2>&1; then
        configure_args+=("-DPython3_EXECUTABLE=$(command -v python3)")
    else
        configure_args+=("-DPython3_EXECUTABLE=/usr/bin/python3")
    fi
    if [[ -n ${PARLEY_SHARED_DIR:-} ]]; then
        configure_args+=("-DPARLEY_SHARED_DIR=$PARLEY_SHARED_DIR")
    fi
    configure_args+=("-DPARLEY_NPM_PEERS=$PWD/$npm_peers")
}

# The travel assistant: a YAML template set run by parley::bot with two C++ functions, a template
# switch and extract<itinerary>; offline against the fake model server unless OPENAI_BASE_URL or
# OPENAI_API_KEY is set.
demo() {
    cmake --preset gcc "${configure_args[@]}"
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
        # Without debug information: the same -O2 code and warnings, a quarter less compile time.
        # (clang-asan has its own flags: -O0 without debug information.)
        args+=("-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -DNDEBUG")
    fi
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
        install_missing_packages
        set_configure_args
        demo
        ;;
    test)
        install_missing_packages
        install_npm_peers
        set_configure_args
        run_tests gcc clang-asan
        ;;
    sanitize)
        install_missing_packages
        install_npm_peers
        set_configure_args
        run_tests clang-asan
        ;;
    *)
        usage
        exit 2
        ;;
esac

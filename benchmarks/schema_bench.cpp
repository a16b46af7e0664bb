// Benchmarks of the schema layer (docs/benchmarks.md): from_json<T> of a 2 KB tool-call argument
// object into a nested described struct, next to Boost.JSON's value_to<T> of the same struct,
// and what the struct's JSON Schema costs at run time.
//
//   parley-bench-schema_bench [Google Benchmark flags]
//   parley-bench-schema_bench --print=arguments|schema|strict_schema
//       writes the argument text, or the schema text (plain or strict), to stdout and exits.
//
// Benchmark names are GROUP/VARIANT:
//   value/parley_from_json    parley::from_json<order_arguments>(v) of an already parsed value
//   value/boost_value_to      boost::json::value_to<order_arguments>(v) of the same value
//   text/parley_from_json     boost::json::parse(text), then parley::from_json
//   text/boost_value_to       boost::json::parse(text), then boost::json::value_to
//   schema/text               reading parley::json_schema_text<order_arguments> (a constant)
//   schema/strict_text        reading parley::strict_json_schema_text<order_arguments>
//   schema/value              parley::json_schema<order_arguments>(): a reference to the value
//                             parsed once per program from the text
//   schema/strict_value       parley::strict_json_schema<order_arguments>(), the same
//   schema/value_copy         a copy of json_schema<order_arguments>() (what a caller that keeps
//                             its own copy pays per copy)
//   schema/parse_text         parsing the schema text into a boost::json::value (what the first
//                             json_schema<T>() call does once)
//
// Every conversion benchmark first checks that both converters give equal structs, and that
// they equal the struct the JSON was written from; otherwise it fails with SkipWithError.
#include <parley/schema.hpp>

#include <benchmark/benchmark.h>
#include <boost/describe.hpp>
#include <boost/json.hpp>
#include <boost/version.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shop {

enum class currency_code { EUR, USD, GBP, CHF };
BOOST_DESCRIBE_ENUM(currency_code, EUR, USD, GBP, CHF)

enum class shipping_speed { standard, express, overnight };
BOOST_DESCRIBE_ENUM(shipping_speed, standard, express, overnight)
PARLEY_ANNOTATE(shipping_speed, "How fast the parcel travels")

struct postal_address {
    std::string name;
    std::string street;
    std::string city;
    std::string postal_code;
    std::string country;
    friend bool operator==(const postal_address&, const postal_address&) = default;
};
BOOST_DESCRIBE_STRUCT(postal_address, (), (name, street, city, postal_code, country))
PARLEY_ANNOTATE(postal_address, "A postal address",
    (country, "ISO 3166-1 alpha-2 country code", pattern("^[A-Z]{2}$")))

struct customer_info {
    std::int64_t id = 0;
    std::string name;
    std::string email;
    std::string phone;
    postal_address billing;
    friend bool operator==(const customer_info&, const customer_info&) = default;
};
BOOST_DESCRIBE_STRUCT(customer_info, (), (id, name, email, phone, billing))
PARLEY_ANNOTATE(customer_info, "The customer who pays",
    (email, format("email")),
    (billing, "Where the invoice goes"))

struct line_item {
    std::string sku;
    std::string title;
    int quantity = 0;
    double unit_price = 0;
    double tax_rate = 0;
    std::optional<std::string> gift_message;
    std::vector<std::string> options;
    friend bool operator==(const line_item&, const line_item&) = default;
};
BOOST_DESCRIBE_STRUCT(line_item, (), (sku, title, quantity, unit_price, tax_rate, gift_message, options))
PARLEY_ANNOTATE(line_item, "One product of the order",
    (sku, "Stock-keeping unit"),
    (quantity, "How many", minimum(1), maximum(1000)),
    (unit_price, "Price of one, before tax", minimum(0)),
    (tax_rate, "Tax rate as a fraction", minimum(0), maximum(1)),
    (gift_message, "Printed on a card in the parcel"),
    (options, "Size, colour and the like"))

struct shipment {
    shipping_speed speed = shipping_speed::standard;
    postal_address address;
    std::optional<std::string> instructions;
    friend bool operator==(const shipment&, const shipment&) = default;
};
BOOST_DESCRIBE_STRUCT(shipment, (), (speed, address, instructions))
PARLEY_ANNOTATE(shipment, "How and where the order is delivered",
    (instructions, "Notes for the courier"))

struct order_arguments {
    std::string order_id;
    std::string created_at;
    customer_info customer;
    std::vector<line_item> items;
    shipment shipping;
    currency_code currency = currency_code::EUR;
    double discount = 0;
    bool gift_wrap = false;
    std::vector<std::string> tags;
    std::optional<std::string> coupon;
    friend bool operator==(const order_arguments&, const order_arguments&) = default;
};
BOOST_DESCRIBE_STRUCT(order_arguments, (),
    (order_id, created_at, customer, items, shipping, currency, discount, gift_wrap, tags, coupon))
PARLEY_ANNOTATE(order_arguments, "Arguments of the place_order tool", name("place_order"),
    (order_id, "Order number", pattern("^ORD-[0-9]{8}$")),
    (created_at, format("date-time")),
    (items, min_items(1), max_items(50)),
    (discount, "Discount in the order's currency", minimum(0)),
    (coupon, "Coupon code, if the customer gave one"))

}  // namespace shop

namespace {

namespace json = boost::json;
using shop::order_arguments;

// The schema is made by the compiler: these are constant expressions, nothing runs for them.
static_assert(!parley::json_schema_text<order_arguments>.empty());
static_assert(!parley::strict_json_schema_text<order_arguments>.empty());

// Sizes the argument text must fall within (a "2 KB" tool call).
constexpr std::size_t min_text_size = 1900;
constexpr std::size_t max_text_size = 2200;

// The order the model's arguments describe: fixed data, with some non-ASCII text, escapes, an
// optional member present and one null, and every member of every struct present (value_to
// needs exactly the described members).
order_arguments make_order() {
    order_arguments o;
    o.order_id = "ORD-20261121";
    o.created_at = "2026-11-21T09:41:07Z";
    o.customer = {4'711'000'123'456, "Jürgen Müller-Lüdenscheidt", "j.mueller@example.de", "+49 30 1234567",
                  {"Jürgen Müller-Lüdenscheidt", "Friedrichstraße 123, 3. OG", "Berlin", "10117", "DE"}};
    const char* const titles[] = {
        "Espresso machine, dual boiler", "Burr grinder \"Precision 64\"", "Milk jug 600 ml, stainless",
        "Descaling tablets (12 pack)",   "Cup set: 6 × cappuccino",     "Tamper 58.5 mm, walnut handle",
        "Knock box with rubber bar",      "Water filter cartridge",
    };
    const char* const option_sets[][2] = {
        {"colour: silver", "plug: EU"}, {"colour: black", "burrs: flat"}, {"size: 600 ml", ""},
        {"", ""},                        {"colour: white", "glaze: matte"}, {"diameter: 58.5 mm", ""},
        {"colour: graphite", "size: large"}, {"", ""},
    };
    for (int i = 0; i < 8; ++i) {
        shop::line_item item;
        item.sku = "SKU-" + std::to_string(100'200 + 37 * i);
        item.title = titles[i];
        item.quantity = 1 + (i * 3) % 5;
        item.unit_price = 12.5 + 41.25 * i;
        item.tax_rate = i == 3 ? 0.07 : 0.19;
        if (i % 3 == 1) item.gift_message = "Happy birthday!\nEnjoy the coffee – Anna";
        for (const char* opt : option_sets[i])
            if (*opt != '\0') item.options.emplace_back(opt);
        o.items.push_back(std::move(item));
    }
    o.shipping = {shop::shipping_speed::express,
                  {"Anna Schmidt", "Kastanienallee 7", "Berlin", "10435", "DE"},
                  std::nullopt};
    o.currency = shop::currency_code::EUR;
    o.discount = 15.0;
    o.gift_wrap = true;
    o.tags = {"web", "returning-customer", "priority"};
    o.coupon = "AUTUMN-15";
    return o;
}

// The JSON a model would send: every member present, optional ones as null when empty, in
// declaration order. Written with Boost.JSON only, so that neither converter under test writes
// its own input.
json::value address_json(const shop::postal_address& a) {
    return json::object{{"name", a.name}, {"street", a.street}, {"city", a.city},
                        {"postal_code", a.postal_code}, {"country", a.country}};
}

json::value optional_json(const std::optional<std::string>& s) {
    return s ? json::value(json::string(*s)) : json::value(nullptr);
}

json::value strings_json(const std::vector<std::string>& v) {
    json::array a;
    for (const std::string& s : v) a.emplace_back(json::string(s));
    return a;
}

json::value order_json(const order_arguments& o) {
    json::array items;
    for (const shop::line_item& i : o.items)
        items.push_back(json::object{{"sku", i.sku}, {"title", i.title}, {"quantity", i.quantity},
                                     {"unit_price", i.unit_price}, {"tax_rate", i.tax_rate},
                                     {"gift_message", optional_json(i.gift_message)},
                                     {"options", strings_json(i.options)}});
    return json::object{
        {"order_id", o.order_id},
        {"created_at", o.created_at},
        {"customer", json::object{{"id", o.customer.id}, {"name", o.customer.name}, {"email", o.customer.email},
                                  {"phone", o.customer.phone}, {"billing", address_json(o.customer.billing)}}},
        {"items", std::move(items)},
        {"shipping", json::object{{"speed", boost::describe::enum_to_string(o.shipping.speed, "")}, {"address", address_json(o.shipping.address)},
                                  {"instructions", optional_json(o.shipping.instructions)}}},
        {"currency", boost::describe::enum_to_string(o.currency, "")},
        {"discount", o.discount},
        {"gift_wrap", o.gift_wrap},
        {"tags", strings_json(o.tags)},
        {"coupon", optional_json(o.coupon)},
    };
}

struct inputs {
    order_arguments expected;
    std::string text;  // the tool call's "arguments" string
    json::value value;  // the text, parsed
};

const inputs& the_inputs() {
    static const inputs in = [] {
        inputs r;
        r.expected = make_order();
        r.text = json::serialize(order_json(r.expected));
        r.value = json::parse(r.text);
        return r;
    }();
    return in;
}

// Empty when both converters read `v` into `expected`; otherwise what went wrong.
std::string check_converters(const json::value& v, const order_arguments& expected) {
    auto ours = parley::from_json<order_arguments>(v);
    if (!ours) return "parley::from_json failed: " + ours.error_text();
    if (!ours.warnings().empty()) return "parley::from_json warned: " + parley::format_problems(ours.warnings());
    order_arguments theirs;
    try {
        theirs = json::value_to<order_arguments>(v);
    } catch (const std::exception& e) {
        return std::string("boost::json::value_to failed: ") + e.what();
    }
    if (!(*ours == expected)) return "parley::from_json read another order than the one written";
    if (!(theirs == expected)) return "boost::json::value_to read another order than the one written";
    if (parley::to_json(*ours) != parley::to_json(theirs)) return "the two orders differ in their JSON";
    return {};
}

bool checked(benchmark::State& state) {
    const inputs& in = the_inputs();
    const std::string problem = check_converters(in.value, in.expected);
    if (!problem.empty()) {
        state.SkipWithError(problem.c_str());
        return false;
    }
    state.counters["json_bytes"] = static_cast<double>(in.text.size());
    return true;
}

void bench_value_parley(benchmark::State& state) {
    if (!checked(state)) return;
    const json::value& v = the_inputs().value;
    for (auto _ : state) {
        auto r = parley::from_json<order_arguments>(v);
        benchmark::DoNotOptimize(r);
    }
}

void bench_value_boost(benchmark::State& state) {
    if (!checked(state)) return;
    const json::value& v = the_inputs().value;
    for (auto _ : state) {
        auto r = json::value_to<order_arguments>(v);
        benchmark::DoNotOptimize(r);
    }
}

void bench_text_parley(benchmark::State& state) {
    if (!checked(state)) return;
    const std::string& text = the_inputs().text;
    for (auto _ : state) {
        json::value v = json::parse(text);
        auto r = parley::from_json<order_arguments>(v);
        benchmark::DoNotOptimize(r);
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * text.size()));
}

void bench_text_boost(benchmark::State& state) {
    if (!checked(state)) return;
    const std::string& text = the_inputs().text;
    for (auto _ : state) {
        json::value v = json::parse(text);
        auto r = json::value_to<order_arguments>(v);
        benchmark::DoNotOptimize(r);
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * text.size()));
}

template <const std::string_view& Text>
void bench_schema_text(benchmark::State& state) {
    std::size_t total = 0;
    for (auto _ : state) {
        std::string_view text = Text;
        benchmark::DoNotOptimize(text);
        total += text.size();
    }
    benchmark::DoNotOptimize(total);
    state.counters["schema_bytes"] = static_cast<double>(Text.size());
}

template <const json::value& (*Schema)()>
void bench_schema_value(benchmark::State& state) {
    for (auto _ : state) {
        const json::value& schema = Schema();
        benchmark::DoNotOptimize(&schema);
    }
}

void bench_schema_value_copy(benchmark::State& state) {
    for (auto _ : state) {
        json::value schema = parley::json_schema<order_arguments>();
        benchmark::DoNotOptimize(schema);
    }
}

void bench_schema_parse(benchmark::State& state) {
    constexpr std::string_view text = parley::json_schema_text<order_arguments>;
    for (auto _ : state) {
        json::value schema = json::parse(json::string_view(text.data(), text.size()));
        benchmark::DoNotOptimize(schema);
    }
    state.counters["schema_bytes"] = static_cast<double>(text.size());
}

void register_benchmarks() {
    benchmark::RegisterBenchmark("value/parley_from_json", bench_value_parley);
    benchmark::RegisterBenchmark("value/boost_value_to", bench_value_boost);
    benchmark::RegisterBenchmark("text/parley_from_json", bench_text_parley);
    benchmark::RegisterBenchmark("text/boost_value_to", bench_text_boost);
    benchmark::RegisterBenchmark("schema/text", bench_schema_text<parley::json_schema_text<order_arguments>>);
    benchmark::RegisterBenchmark("schema/strict_text",
                                 bench_schema_text<parley::strict_json_schema_text<order_arguments>>);
    benchmark::RegisterBenchmark("schema/value", bench_schema_value<parley::json_schema<order_arguments>>);
    benchmark::RegisterBenchmark("schema/strict_value", bench_schema_value<parley::strict_json_schema<order_arguments>>);
    benchmark::RegisterBenchmark("schema/value_copy", bench_schema_value_copy);
    benchmark::RegisterBenchmark("schema/parse_text", bench_schema_parse);
}

const char* compiler() {
#if defined(__clang__)
    return "clang++ " __clang_version__;
#elif defined(__GNUC__)
    return "g++ " __VERSION__;
#else
    return "unknown";
#endif
}

}  // namespace

int main(int argc, char** argv) {
    std::string_view print;
    for (int i = 1; i < argc; ++i)
        if (std::string_view(argv[i]).rfind("--print=", 0) == 0) print = std::string_view(argv[i]).substr(8);
    try {
        const inputs& in = the_inputs();
        if (print == "arguments") {
            std::printf("%s\n", in.text.c_str());
            return 0;
        }
        if (print == "schema" || print == "strict_schema") {
            const std::string_view text = print == "schema" ? parley::json_schema_text<order_arguments>
                                                            : parley::strict_json_schema_text<order_arguments>;
            std::printf("%.*s\n", static_cast<int>(text.size()), text.data());
            return 0;
        }
        if (!print.empty()) {
            std::fprintf(stderr, "error: --print takes arguments, schema or strict_schema\n");
            return 1;
        }
        if (in.text.size() < min_text_size || in.text.size() > max_text_size) {
            std::fprintf(stderr, "error: the argument text is %zu bytes, outside %zu to %zu\n", in.text.size(),
                         min_text_size, max_text_size);
            return 1;
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "error: %s\n", e.what());
        return 1;
    }

    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    const inputs& in = the_inputs();
    benchmark::AddCustomContext("parley_compiler", compiler());
    benchmark::AddCustomContext("parley_boost_version", BOOST_LIB_VERSION);
    benchmark::AddCustomContext("parley_json_bytes", std::to_string(in.text.size()));
    benchmark::AddCustomContext("parley_schema_bytes", std::to_string(parley::json_schema_text<order_arguments>.size()));
    benchmark::AddCustomContext("parley_strict_schema_bytes",
                                std::to_string(parley::strict_json_schema_text<order_arguments>.size()));
#if defined(__OPTIMIZE__)
    benchmark::AddCustomContext("parley_optimized", "yes");
#else
    benchmark::AddCustomContext("parley_optimized", "no");
#endif
#if defined(NDEBUG)
    benchmark::AddCustomContext("parley_ndebug", "yes");
#else
    benchmark::AddCustomContext("parley_ndebug", "no");
#endif
    register_benchmarks();
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}

// libFuzzer target for every parser of outside input in ushmem: the environment (src/core/env.cpp).
//
// The first input byte chooses what is fed the rest:
//   0 parse_size  1 parse_bool  2 parse_integer  3 parse_seconds  4 format_bytes(parse_size)
//   5 load_settings: the rest, split at '\n', gives the values of the table's variables in order
//     (a variable without a line is unset)
//   6 unknown_env_warnings: the rest, split at '\n', is the environment ("NAME=value" lines)
// Built with AddressSanitizer and UBSan; besides crashes it checks that a failed parse explains
// itself and that parsing is deterministic.
#include "core/env.hpp"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

using namespace ushmem::core;

namespace {
std::vector<std::string> g_values;   // load_settings: values by table index
std::vector<std::string> g_names;

const char *fake_getenv(const char *name) {
    for (std::size_t i = 0; i < g_names.size() && i < g_values.size(); ++i)
        if (g_names[i] == name) return g_values[i].c_str();
    return nullptr;
}

std::vector<std::string> split_lines(std::string_view s) {
    std::vector<std::string> out;
    std::size_t start = 0;
    for (std::size_t i = 0; i <= s.size(); ++i)
        if (i == s.size() || s[i] == '\n') {
            out.emplace_back(s.substr(start, i - start));
            start = i + 1;
        }
    return out;
}

[[noreturn]] void fail(const char *what) {
    std::fprintf(stderr, "fuzz_env: %s\n", what);
    std::abort();
}

template <class T, class F> void check_parser(F parse, std::string_view text) {
    T a{}, b{};
    std::string ea, eb;
    bool ok = parse(text, a, ea);
    bool ok2 = parse(text, b, eb);
    if (ok != ok2 || (ok && !(a == b) && !(a != a))) fail("parse is not deterministic");
    if (!ok && ea.empty()) fail("a rejected value without an explanation");
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
    if (size == 0) return 0;
    std::string_view text(reinterpret_cast<const char *>(data + 1), size - 1);
    switch (data[0] % 7) {
    case 0: check_parser<std::size_t>(parse_size, text); break;
    case 1: check_parser<bool>(parse_bool, text); break;
    case 2: check_parser<long>(parse_integer, text); break;
    case 3: check_parser<double>(parse_seconds, text); break;
    case 4: {
        std::size_t v = 0;
        std::string err;
        if (parse_size(text, v, err) && format_bytes(v).empty()) fail("format_bytes returned nothing");
        break;
    }
    case 5: {
        if (g_names.empty())
            for (const env_var &v : env_table()) g_names.emplace_back(v.name);
        g_values = split_lines(text);
        settings s;
        std::string err;
        if (!load_settings(s, err, fake_getenv) && err.find("malformed value") == std::string::npos &&
            err.find("out-of-range value") == std::string::npos)
            fail("load_settings failed without naming the variable");
        for (const env_var &v : env_table()) (void)env_value_text(v, fake_getenv);
        break;
    }
    default: {
        std::vector<std::string> lines = split_lines(text);
        std::vector<char *> env;
        for (std::string &l : lines) env.push_back(l.data());
        env.push_back(nullptr);
        (void)unknown_env_warnings(env.data());
        break;
    }
    }
    return 0;
}

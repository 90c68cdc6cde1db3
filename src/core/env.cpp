#include "core/env.hpp"

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <climits>
#include <cstdint>
#include <cmath>
#include <cstdlib>
#include <cstring>

namespace ushmem::core {
namespace {
const char *real_getenv(const char *n) { return std::getenv(n); }

std::string trim(std::string_view s) {
    size_t b = s.find_first_not_of(" \t");
    if (b == std::string_view::npos) return {};
    size_t e = s.find_last_not_of(" \t");
    return std::string(s.substr(b, e - b + 1));
}
} // namespace

const std::vector<env_var> &env_table() {
    static const std::vector<env_var> table = {
#define USHMEM_ENV(field, name, kind, def, lo, hi, desc) {name, env_kind::kind, def, lo, hi, desc},
#include "core/env_defs.h"
#undef USHMEM_ENV
    };
    return table;
}

bool parse_size(std::string_view text, std::size_t &out, std::string &err) {
    // The specification's syntax: a non-negative integer or decimal ("3.1M", ".5m"), an optional
    // multiplier k/m/g/t (binary, either case), and anything after the multiplier is ignored
    // ("20kk" is 20 KiB, so "512MiB" and "512MB" read as 512 MiB). The size is the ceiling of
    // number x multiplier.
    std::string t = trim(text);
    const char *forms = "expected a non-negative number of bytes with an optional K, M, G or T "
                        "suffix (e.g. 512M or 1.5G)";
    std::size_t i = 0;
    while (i < t.size() && std::isdigit(static_cast<unsigned char>(t[i]))) ++i;
    std::size_t int_end = i;
    if (i < t.size() && t[i] == '.') {
        ++i;
        while (i < t.size() && std::isdigit(static_cast<unsigned char>(t[i]))) ++i;
    }
    std::string number = t.substr(0, i);
    if (number.empty() || number == "." || (int_end == 0 && i <= 1)) {
        err = forms;
        return false;
    }
    while (i < t.size() && t[i] == ' ') ++i;
    unsigned shift = 0;
    if (i < t.size()) {
        switch (std::tolower(static_cast<unsigned char>(t[i]))) {
        case 'k': shift = 10; break;
        case 'm': shift = 20; break;
        case 'g': shift = 30; break;
        case 't': shift = 40; break;
        case 'b': break;  // plain bytes: "4096B"
        default: err = forms; return false;
        }
    }
    long double v = std::strtold(number.c_str(), nullptr);
    long double bytes = std::ceil(v * std::ldexp(1.0L, int(shift)));
    if (!(bytes >= 0) || bytes > 1.8e19L) {
        err = "value too large";
        return false;
    }
    out = std::size_t(bytes);
    return true;
}

bool parse_bool(std::string_view text, bool &out, std::string &err) {
    std::string t = trim(text);
    for (auto &c : t) c = char(std::tolower(static_cast<unsigned char>(c)));
    if (t == "1" || t == "y" || t == "yes" || t == "on" || t == "true") { out = true; return true; }
    if (t == "0" || t == "n" || t == "no" || t == "off" || t == "false") { out = false; return true; }
    err = "expected 0 or 1 (also yes/no, on/off, true/false)";
    return false;
}

bool parse_integer(std::string_view text, long &out, std::string &err) {
    std::string t = trim(text);
    errno = 0;
    char *end = nullptr;
    long v = std::strtol(t.c_str(), &end, 10);
    if (t.empty() || *end != '\0' || errno == ERANGE) {
        err = "expected a whole number";
        return false;
    }
    out = v;
    return true;
}

bool parse_seconds(std::string_view text, double &out, std::string &err) {
    std::string t = trim(text);
    char *end = nullptr;
    double v = std::strtod(t.c_str(), &end);
    if (t.empty() || *end != '\0' || !std::isfinite(v) || v < 0) {
        err = "expected a non-negative number of seconds (0 = off)";
        return false;
    }
    out = v;
    return true;
}

// SHMEM_X, or its deprecated SMA_X form when only that is set (the specification keeps the SMA_
// variables working; SHMEM_ wins when both are set).
static const char *lookup(const char *name, const char *(*get)(const char *)) {
    if (const char *s = get(name)) return s;
    if (std::strncmp(name, "SHMEM_", 6) == 0) {
        std::string sma = std::string("SMA_") + (name + 6);
        return get(sma.c_str());
    }
    return nullptr;
}

std::string env_value_text(const env_var &v, const char *(*getenv_fn)(const char *)) {
    const char *s = lookup(v.name, getenv_fn ? getenv_fn : real_getenv);
    return s ? std::string(s) : std::string(v.default_value);
}

namespace {
// A bound of the table, parsed like a value of its kind ("64K", "1e9"). tests/test_env.cpp checks
// that every bound parses, so a bound that did not would be a bug of the table, caught there.
bool parse_bound(const char *text, std::size_t &out) { std::string e; return parse_size(text, out, e); }
bool parse_bound(const char *text, long &out) { std::string e; return parse_integer(text, out, e); }
bool parse_bound(const char *text, double &out) { std::string e; return parse_seconds(text, out, e); }

template <class T> bool in_range(T v, const char *lo, const char *hi) {
    T b{};
    if (*lo && parse_bound(lo, b) && v < b) return false;
    if (*hi && parse_bound(hi, b) && v > b) return false;
    return true;
}

std::string range_text(const char *lo, const char *hi) {
    if (*lo && *hi) return std::string(lo) + " to " + hi;
    if (*lo) return std::string("at least ") + lo;
    if (*hi) return std::string("at most ") + hi;
    return {};
}

// A field's value as SHMEM_INFO shows it: sizes with the largest exact suffix, as they are set.
std::string value_text(std::size_t v) {
    static const char suffix[] = "TGMK";
    for (int i = 0; i < 4 && v; ++i) {
        const unsigned shift = unsigned(40 - 10 * i);
        if (v % (std::size_t(1) << shift) == 0) return std::to_string(v >> shift) + suffix[i];
    }
    return std::to_string(v);
}
std::string value_text(bool v) { return v ? "1" : "0"; }
std::string value_text(long v) { return std::to_string(v); }
std::string value_text(const std::string &v) { return v; }
std::string value_text(double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
}
} // namespace

std::string env_range_text(const env_var &v) { return range_text(v.min, v.max); }

std::string setting_text(const settings &s, const env_var &v) {
#define USHMEM_ENV(field, nm, kind, def, lo, hi, desc) \
    if (std::strcmp(v.name, nm) == 0) return value_text(s.field);
#include "core/env_defs.h"
#undef USHMEM_ENV
    return {};
}

bool load_settings(settings &out, std::string &err, const char *(*getenv_fn)(const char *)) {
    auto get = getenv_fn ? getenv_fn : real_getenv;
    auto value = [&](const char *name, const char *def) {
        const char *s = lookup(name, get);
        return std::string(s ? s : def);
    };
    auto fail = [&](const char *name, const std::string &val, const std::string &why) {
        err = std::string("malformed value ") + name + "='" + val + "': " + why;
        return false;
    };
    // In the same style, so that a value the code could only clamp is refused instead.
    auto out_of_range = [&](const char *name, const std::string &val, const char *lo, const char *hi) {
        err = std::string("out-of-range value ") + name + "='" + val + "': the valid range is " +
              range_text(lo, hi);
        return false;
    };
    std::string why;
    // Each kind has one parser; the table decides which field gets which.
    auto set = [&](auto &field, const char *name, env_kind kind, const char *def, const char *lo,
                   const char *hi) -> bool {
        (void)lo, (void)hi;  // unused for booleans and texts (no range)
        std::string v = value(name, def);
        using F = std::decay_t<decltype(field)>;
        if constexpr (std::is_same_v<F, std::size_t>) {
            if (!parse_size(v, field, why)) return fail(name, v, why);
        } else if constexpr (std::is_same_v<F, bool>) {
            if (!parse_bool(v, field, why)) return fail(name, v, why);
        } else if constexpr (std::is_same_v<F, long>) {
            if (!parse_integer(v, field, why)) return fail(name, v, why);
        } else if constexpr (std::is_same_v<F, double>) {
            if (!parse_seconds(v, field, why)) return fail(name, v, why);
        } else {
            field = trim(v);
            if (kind == env_kind::choice && field != "auto" && field != "on" && field != "off")
                return fail(name, v, "expected one of auto, on, off");
        }
        if constexpr (!std::is_same_v<F, bool> && !std::is_same_v<F, std::string>)
            if (!in_range(field, lo, hi)) return out_of_range(name, v, lo, hi);
        return true;
    };
#define USHMEM_ENV(field, name, kind, def, lo, hi, desc) \
    if (!set(out.field, name, env_kind::kind, def, lo, hi)) return false;
#include "core/env_defs.h"
#undef USHMEM_ENV
    return true;
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
    // Levenshtein distance, one row at a time (names are short).
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::size_t diag = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            std::size_t up = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
            diag = up;
        }
    }
    return row[b.size()];
}

std::vector<std::string> unknown_env_warnings(char *const *environ_) {
    // Only our own prefixes: a misspelt USHMEM_/SHMEM_ variable otherwise silently does nothing.
    // SMA_X is the specification's deprecated spelling of SHMEM_X and is compared as SHMEM_X.
    std::vector<std::string> out;
    for (char *const *e = environ_; e && *e; ++e) {
        std::string_view entry(*e);
        std::string name(entry.substr(0, entry.find('=')));
        std::string canonical = name;
        if (name.rfind("SMA_", 0) == 0) canonical = "SHMEM_" + name.substr(4);
        else if (name.rfind("USHMEM_", 0) != 0 && name.rfind("SHMEM_", 0) != 0) continue;
        const env_var *best = nullptr;
        std::size_t best_d = SIZE_MAX;
        bool known = false;
        for (const env_var &v : env_table()) {
            if (canonical == v.name) {
                known = true;
                break;
            }
            std::size_t d = edit_distance(canonical, v.name);
            if (d < best_d) best_d = d, best = &v;
        }
        if (known) continue;
        std::string msg = "environment variable " + name + " is not a ushmem setting and is ignored";
        // Suggest a name only when it is plausibly a typo: at most a third of the name differs.
        if (best && best_d <= std::max<std::size_t>(2, canonical.size() / 3))
            msg += "; did you mean " + std::string(best->name) + "?";
        else
            msg += " (SHMEM_INFO=1 lists every setting)";
        out.push_back(std::move(msg));
    }
    return out;
}

std::string format_bytes(std::size_t b) {
    char buf[64];
    if (b >= (1ULL << 30) && b % (1ULL << 30) == 0) std::snprintf(buf, sizeof buf, "%zu GiB", b >> 30);
    else if (b >= (1ULL << 20) && b % (1ULL << 20) == 0) std::snprintf(buf, sizeof buf, "%zu MiB", b >> 20);
    else if (b >= (1ULL << 10) && b % (1ULL << 10) == 0) std::snprintf(buf, sizeof buf, "%zu KiB", b >> 10);
    else std::snprintf(buf, sizeof buf, "%zu bytes", b);
    return buf;
}

std::string format_bytes_approx(std::uint64_t b) {
    static const char *const units[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    int u = 0;
    long double v = static_cast<long double>(b);
    while (v >= 1024 && u < 6) v /= 1024, ++u;
    char buf[64];
    if (u == 0) std::snprintf(buf, sizeof buf, "%" PRIu64 " bytes", b);
    else std::snprintf(buf, sizeof buf, "%.1Lf %s", v, units[u]);
    return buf;
}

std::string size_setting_for(std::uint64_t bytes) {
    std::uint64_t v = std::uint64_t(1) << 20;
    while (v < bytes && v < (std::uint64_t(1) << 62)) v <<= 1;
    const char *suffix = "K";
    std::uint64_t n = v >> 10;
    if (v >= (std::uint64_t(1) << 40)) suffix = "T", n = v >> 40;
    else if (v >= (std::uint64_t(1) << 30)) suffix = "G", n = v >> 30;
    else if (v >= (std::uint64_t(1) << 20)) suffix = "M", n = v >> 20;
    return std::to_string(n) + suffix;
}

} // namespace ushmem::core

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
#define USHMEM_ENV(field, name, kind, def, desc) {name, env_kind::kind, def, desc},
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
    std::string why;
    // Each kind has one parser; the table decides which field gets which.
    auto set = [&](auto &field, const char *name, env_kind kind, const char *def) -> bool {
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
        return true;
    };
#define USHMEM_ENV(field, name, kind, def, desc) \
    if (!set(out.field, name, env_kind::kind, def)) return false;
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

// Settings read from the environment, through the single table in env_defs.h.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ushmem::core {

enum class env_kind { size, boolean, integer, seconds, choice, string };

struct env_var {
    const char *name;
    env_kind kind;
    const char *default_value;
    const char *min, *max;  // valid range (size, integer, seconds) in the kind's syntax; "": none
    const char *description;
};

// The table, in definition order.
const std::vector<env_var> &env_table();

// The C++ type of each kind's value.
template <env_kind K> struct env_value;
template <> struct env_value<env_kind::size> { using type = std::size_t; };
template <> struct env_value<env_kind::boolean> { using type = bool; };
template <> struct env_value<env_kind::integer> { using type = long; };
template <> struct env_value<env_kind::seconds> { using type = double; };
template <> struct env_value<env_kind::choice> { using type = std::string; };
template <> struct env_value<env_kind::string> { using type = std::string; };

// What the user set (or the default), one field per row of env_defs.h, generated from it: the
// table is the only place a setting, its kind and its default are written. Filled by
// load_settings and not changed afterwards; what init derives from a setting (e.g. that bulk
// transfers cannot run here) lives with its owner, so that SHMEM_INFO can show both.
struct settings {
#define USHMEM_ENV(field, name, kind, def, lo, hi, desc) env_value<env_kind::kind>::type field{};
#include "core/env_defs.h"
#undef USHMEM_ENV
};

// Parsers, exposed for unit tests. Each returns false and sets `err` to what is wrong and what
// the valid forms are.
bool parse_size(std::string_view text, std::size_t &out, std::string &err);
bool parse_bool(std::string_view text, bool &out, std::string &err);
bool parse_integer(std::string_view text, long &out, std::string &err);
bool parse_seconds(std::string_view text, double &out, std::string &err);

// Read every variable (or its default). On a malformed value returns false with `err` naming
// the variable, the value and the valid forms; on a value outside its range (env_defs.h), the
// variable, the value and the range. `getenv_fn` is injectable for tests.
bool load_settings(settings &out, std::string &err, const char *(*getenv_fn)(const char *) = nullptr);

// Value of a variable as text (its setting or the default), as given.
std::string env_value_text(const env_var &v, const char *(*getenv_fn)(const char *) = nullptr);

// The value in effect of a variable: its field of `s` as text ("4K", "0.001", "1"), for SHMEM_INFO
// (SHMEM_INFO passes settings_in_effect(): rt.cfg with what init derived, e.g. USHMEM_BULK_MIN 0
// where bulk transfers cannot run).
std::string setting_text(const settings &s, const env_var &v);

// A variable's valid range as text: "1 to 64", "at least 1"; "" when it has none.
std::string env_range_text(const env_var &v);

std::string format_bytes(std::size_t bytes);
// With one decimal in the largest unit that fits: "18.6 GiB", "512 bytes" (machine figures).
std::string format_bytes_approx(std::uint64_t bytes);
// A value for a size variable that holds at least `bytes`: the next power of two with the largest
// exact suffix, "2T", "512M", "64K" (at least 1M). Remedies suggest it.
std::string size_setting_for(std::uint64_t bytes);

// Levenshtein distance between two names (for "did you mean" suggestions).
std::size_t edit_distance(std::string_view a, std::string_view b);
// One warning per USHMEM_*, SHMEM_* or SMA_* variable of `environ_` that the table does not
// define, with the closest known name when one is near. Printed at init by PE 0.
std::vector<std::string> unknown_env_warnings(char *const *environ_);

} // namespace ushmem::core

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

struct settings {
    std::size_t symmetric_size = 0;
    bool debug = false;
    bool info = false;
    bool version = false;
    bool direct = true;
    bool ctx_workers = true;
    bool peer_failure = true;
    std::string progress_thread;
    std::string signal_messages;
    bool acked_messages = true;
    std::size_t put_pack = 4096;
    long put_pack_pes = 8;
    double put_pack_hold = 0.001;
    bool put_pack_blocking = false;
    long inflight_msgs = 4096;
    std::size_t inflight_bytes = std::size_t(64) << 20;
    std::size_t bulk_min = 512 * 1024;
    std::string heap_address;
    bool static_data = true;
    bool hugepage_notice = true;
    long quiet_ep_max = 16;
    double wait_timeout = 0;
    double progress_handoff = 0.0001;
    std::string wait_policy;
    std::string wait_spin;
    double finalize_notice = 10;
    bool stats = false;
    std::string test_fault;  // USHMEM_TEST_FAULT: tests only
    // Teams and collectives (core/team.cpp, core/coll/).
    long max_teams = 64;
    std::size_t team_scratch = 0;
    std::size_t world_scratch = 0;
    bool as_world_team = true;
    long coll_flat_max = 16;
    std::string barrier_algo;
    std::string bcast_algo;
    std::size_t bcast_tree_min = 0;
    std::size_t bcast_chain_min = 0;
    std::string reduce_algo;
    std::size_t reduce_gather_max = 0;
    std::string collect_algo;
    std::string scan_algo;
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
// (init may adjust a field after load, e.g. USHMEM_BULK_MIN to 0 where bulk transfers cannot run).
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

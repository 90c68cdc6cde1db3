// Environment parsing: every kind of value, malformed input, and the messages.
#include "core/env.hpp"

#include <gtest/gtest.h>

#include <map>
#include <string>

using namespace ushmem::core;

TEST(Env, Sizes) {
    std::size_t v = 0;
    std::string err;
    EXPECT_TRUE(parse_size("512", v, err));
    EXPECT_EQ(v, 512u);
    EXPECT_TRUE(parse_size("4K", v, err));
    EXPECT_EQ(v, 4096u);
    EXPECT_TRUE(parse_size("256M", v, err));
    EXPECT_EQ(v, 256u << 20);
    EXPECT_TRUE(parse_size("2g", v, err));
    EXPECT_EQ(v, std::size_t(2) << 30);
    EXPECT_TRUE(parse_size("1GiB", v, err));
    EXPECT_EQ(v, std::size_t(1) << 30);
    EXPECT_TRUE(parse_size(" 64MB ", v, err));
    EXPECT_EQ(v, std::size_t(64) << 20);
    // The specification's own examples.
    EXPECT_TRUE(parse_size("20m", v, err));
    EXPECT_EQ(v, 20971520u);
    EXPECT_TRUE(parse_size("3.1M", v, err));
    EXPECT_EQ(v, 3250586u);
    EXPECT_TRUE(parse_size(".5m", v, err));
    EXPECT_EQ(v, std::size_t(1) << 19);
    EXPECT_TRUE(parse_size("20kk", v, err));
    EXPECT_EQ(v, 20480u);
    EXPECT_TRUE(parse_size("1.5G", v, err));
    EXPECT_EQ(v, std::size_t(3) << 29);
}

TEST(Env, MalformedSizes) {
    std::size_t v = 0;
    std::string err;
    for (const char *bad : {"12Q", "", "M", "-5", ".", "x10", "3,5M", "99999999999999999999", "20000000T"}) {
        err.clear();
        EXPECT_FALSE(parse_size(bad, v, err)) << bad;
        EXPECT_FALSE(err.empty()) << bad;
    }
}

TEST(Env, BoolsIntegersSeconds) {
    bool b = false;
    long l = 0;
    double d = 0;
    std::string err;
    EXPECT_TRUE(parse_bool("yes", b, err) && b);
    EXPECT_TRUE(parse_bool("0", b, err) && !b);
    EXPECT_TRUE(parse_bool("OFF", b, err) && !b);
    EXPECT_FALSE(parse_bool("maybe", b, err));
    EXPECT_TRUE(parse_integer("-12", l, err) && l == -12);
    EXPECT_FALSE(parse_integer("12x", l, err));
    EXPECT_TRUE(parse_seconds("2.5", d, err) && d == 2.5);
    EXPECT_FALSE(parse_seconds("-1", d, err));
    EXPECT_FALSE(parse_seconds("soon", d, err));
}

namespace {
std::map<std::string, std::string> fake_env;
const char *fake_getenv(const char *n) {
    auto it = fake_env.find(n);
    return it == fake_env.end() ? nullptr : it->second.c_str();
}
} // namespace

TEST(Env, DefaultsComeFromTheTable) {
    fake_env.clear();
    settings s;
    std::string err;
    ASSERT_TRUE(load_settings(s, err, fake_getenv)) << err;
    EXPECT_EQ(s.symmetric_size, std::size_t(64) << 20);
    EXPECT_TRUE(s.direct);
    EXPECT_EQ(s.progress_thread, "auto");
    EXPECT_EQ(s.wait_timeout, 0.0);
    for (const env_var &v : env_table()) {
        EXPECT_NE(std::string(v.description), "");
        EXPECT_EQ(env_value_text(v, fake_getenv), v.default_value);
    }
}

TEST(Env, MalformedValueNamesTheVariable) {
    fake_env = {{"SHMEM_SYMMETRIC_SIZE", "12Q"}};
    settings s;
    std::string err;
    EXPECT_FALSE(load_settings(s, err, fake_getenv));
    EXPECT_NE(err.find("SHMEM_SYMMETRIC_SIZE='12Q'"), std::string::npos) << err;
    EXPECT_NE(err.find("suffix"), std::string::npos) << err;

    fake_env = {{"USHMEM_PROGRESS_THREAD", "sometimes"}};
    EXPECT_FALSE(load_settings(s, err, fake_getenv));
    EXPECT_NE(err.find("USHMEM_PROGRESS_THREAD"), std::string::npos) << err;

    // The deprecated SMA_ name works when SHMEM_ is not set, and loses when both are.
    fake_env = {{"SMA_SYMMETRIC_SIZE", "8M"}};
    ASSERT_TRUE(load_settings(s, err, fake_getenv)) << err;
    EXPECT_EQ(s.symmetric_size, std::size_t(8) << 20);
    fake_env = {{"SMA_SYMMETRIC_SIZE", "8M"}, {"SHMEM_SYMMETRIC_SIZE", "16M"}};
    ASSERT_TRUE(load_settings(s, err, fake_getenv)) << err;
    EXPECT_EQ(s.symmetric_size, std::size_t(16) << 20);

    fake_env = {{"USHMEM_DIRECT", "0"}, {"SHMEM_SYMMETRIC_SIZE", "1G"}};
    ASSERT_TRUE(load_settings(s, err, fake_getenv)) << err;
    EXPECT_FALSE(s.direct);
    EXPECT_EQ(s.symmetric_size, std::size_t(1) << 30);
}

TEST(Env, FormatBytes) {
    EXPECT_EQ(format_bytes(2u << 20), "2 MiB");
    EXPECT_EQ(format_bytes(4096), "4 KiB");
    EXPECT_EQ(format_bytes(100), "100 bytes");
}

TEST(Env, EditDistance) {
    EXPECT_EQ(edit_distance("", ""), 0u);
    EXPECT_EQ(edit_distance("abc", "abc"), 0u);
    EXPECT_EQ(edit_distance("abc", "abd"), 1u);
    EXPECT_EQ(edit_distance("abc", "ab"), 1u);
    EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
}

TEST(Env, UnknownVariablesGetTheClosestName) {
    char e1[] = "USHMEM_DIRCT=0";             // a typo: suggestion
    char e2[] = "SHMEM_SYMETRIC_SIZE=1G";     // a typo of a standard name
    char e3[] = "USHMEM_DIRECT=1";            // known: nothing
    char e4[] = "SMA_SYMMETRIC_SIZE=1G";      // deprecated spelling of a known one: nothing
    char e5[] = "PATH=/bin";                  // not ours: nothing
    char e6[] = "USHMEM_COMPLETELY_DIFFERENT_THING=1";  // nothing near: no suggestion
    char e7[] = "SMA_DEBG=1";                 // deprecated prefix, typo: the SHMEM_ name
    char *env[] = {e1, e2, e3, e4, e5, e6, e7, nullptr};
    std::vector<std::string> w = unknown_env_warnings(env);
    ASSERT_EQ(w.size(), 4u);
    EXPECT_NE(w[0].find("USHMEM_DIRCT"), std::string::npos);
    EXPECT_NE(w[0].find("did you mean USHMEM_DIRECT?"), std::string::npos);
    EXPECT_NE(w[1].find("did you mean SHMEM_SYMMETRIC_SIZE?"), std::string::npos);
    EXPECT_NE(w[2].find("USHMEM_COMPLETELY_DIFFERENT_THING"), std::string::npos);
    EXPECT_EQ(w[2].find("did you mean"), std::string::npos);
    EXPECT_NE(w[2].find("SHMEM_INFO=1"), std::string::npos);
    EXPECT_NE(w[3].find("did you mean SHMEM_DEBUG?"), std::string::npos);
}

// Every number has a range in the table (issue #48): bounds that parse as their kind, in order,
// around the default; the other kinds have none.
TEST(Env, EveryNumberHasARange) {
    for (const env_var &v : env_table()) {
        SCOPED_TRACE(v.name);
        std::string err;
        if (v.kind == env_kind::size || v.kind == env_kind::integer || v.kind == env_kind::seconds) {
            ASSERT_NE(std::string(v.min), "");
            EXPECT_NE(env_range_text(v), "");
            // Each bound is itself a valid value: loading it alone must succeed.
            fake_env = {{v.name, v.min}};
            settings s;
            EXPECT_TRUE(load_settings(s, err, fake_getenv)) << err;
            if (*v.max) {
                fake_env = {{v.name, v.max}};
                EXPECT_TRUE(load_settings(s, err, fake_getenv)) << err;
            }
        } else {
            EXPECT_EQ(std::string(v.min) + v.max, "");
            EXPECT_EQ(env_range_text(v), "");
        }
    }
    fake_env.clear();
    settings s;
    std::string err;
    EXPECT_TRUE(load_settings(s, err, fake_getenv)) << err;  // every default in its range
}

// A value outside its range ends init naming the variable, the value and the range, where the code
// used to clamp it silently (issue #48, item 6).
TEST(Env, OutOfRangeNamesTheVariableValueAndRange) {
    const std::pair<const char *, const char *> bad[][2] = {
        {{"USHMEM_PUT_PACK_PES", "-1"}, {"", "1 to 64"}},
        {{"USHMEM_PUT_PACK_PES", "0"}, {"", "1 to 64"}},
        {{"USHMEM_PUT_PACK_PES", "1000"}, {"", "1 to 64"}},
        {{"USHMEM_PUT_PACK", "1M"}, {"", "0 to 64K"}},
        {{"USHMEM_PUT_PACK", "65537"}, {"", "0 to 64K"}},
        {{"USHMEM_QUIET_EP_MAX", "-1"}, {"", "at least 1"}},
        {{"USHMEM_QUIET_EP_MAX", "0"}, {"", "at least 1"}},
        {{"USHMEM_COLL_FLAT_MAX", "-1"}, {"", "at least 1"}},
        {{"USHMEM_MAX_TEAMS", "1"}, {"", "2 to 1048576"}},
        {{"USHMEM_MAX_TEAMS", "99999999999"}, {"", "2 to 1048576"}},
        {{"USHMEM_TEAM_SCRATCH", "1K"}, {"", "4K to 4T"}},
        {{"USHMEM_PROGRESS_HANDOFF", "1e5"}, {"", "0 to 3600"}},
        {{"SHMEM_SYMMETRIC_SIZE", "0"}, {"", "at least 1"}},
    };
    for (const auto &b : bad) {
        fake_env = {{b[0].first, b[0].second}};
        settings s;
        std::string err;
        EXPECT_FALSE(load_settings(s, err, fake_getenv)) << b[0].first << "=" << b[0].second;
        EXPECT_EQ(err, std::string("out-of-range value ") + b[0].first + "='" + b[0].second +
                           "': the valid range is " + b[1].second);
    }
    // The bounds themselves and the documented special values stay valid, unchanged.
    fake_env = {{"USHMEM_PUT_PACK_PES", "64"}, {"USHMEM_PUT_PACK", "64K"}, {"USHMEM_QUIET_EP_MAX", "1"},
                {"USHMEM_COLL_FLAT_MAX", "1"}, {"USHMEM_MAX_TEAMS", "2"}, {"USHMEM_BULK_MIN", "0"},
                {"USHMEM_WAIT_TIMEOUT", "0"}};
    settings s;
    std::string err;
    ASSERT_TRUE(load_settings(s, err, fake_getenv)) << err;
    EXPECT_EQ(s.put_pack_pes, 64);
    EXPECT_EQ(s.put_pack, std::size_t(64) << 10);
    EXPECT_EQ(s.quiet_ep_max, 1);
    EXPECT_EQ(s.coll_flat_max, 1);
    EXPECT_EQ(s.max_teams, 2);
    fake_env = {{"USHMEM_PUT_PACK_PES", "1"}, {"USHMEM_PUT_PACK", "0"}};
    ASSERT_TRUE(load_settings(s, err, fake_getenv)) << err;
    EXPECT_EQ(s.put_pack_pes, 1);
    EXPECT_EQ(s.put_pack, 0u);
}

// SHMEM_INFO shows the value in effect (the settings' field), in the form a user would set it.
TEST(Env, SettingTextIsTheValueInEffect) {
    fake_env = {{"USHMEM_PUT_PACK", "0.5K"}, {"SHMEM_SYMMETRIC_SIZE", "1.5G"}, {"USHMEM_DIRECT", "off"}};
    settings s;
    std::string err;
    ASSERT_TRUE(load_settings(s, err, fake_getenv)) << err;
    auto text = [&](std::string_view name) {
        for (const env_var &v : env_table())
            if (name == v.name) return setting_text(s, v);
        return std::string("?");
    };
    EXPECT_EQ(text("USHMEM_PUT_PACK"), "512");
    EXPECT_EQ(text("SHMEM_SYMMETRIC_SIZE"), "1536M");
    EXPECT_EQ(text("USHMEM_DIRECT"), "0");
    EXPECT_EQ(text("USHMEM_PUT_PACK_PES"), "8");
    EXPECT_EQ(text("USHMEM_PUT_PACK_HOLD"), "0.001");
    EXPECT_EQ(text("USHMEM_TEAM_SCRATCH"), "32K");
    EXPECT_EQ(text("USHMEM_BCAST_CHAIN_MIN"), "0");
    EXPECT_EQ(text("USHMEM_REDUCE_ALGO"), "auto");
    s.bulk_min = 0;  // what init does where bulk transfers cannot run
    EXPECT_EQ(text("USHMEM_BULK_MIN"), "0");
}

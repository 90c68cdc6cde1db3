#include "util/text.hpp"

#include <cinttypes>
#include <cstdio>

namespace ushmem::util {
namespace {
// Calls f(line) for each line of `text` (without the '\n'); stops early when f returns false.
template <class F> void for_each_line(std::string_view text, F f) {
    while (!text.empty()) {
        std::size_t nl = text.find('\n');
        std::string_view line = text.substr(0, nl);
        if (!f(line)) return;
        if (nl == std::string_view::npos) return;
        text.remove_prefix(nl + 1);
    }
}

std::string_view next_token(std::string_view &s) {
    std::size_t b = s.find_first_not_of(" \t");
    if (b == std::string_view::npos) {
        s = {};
        return {};
    }
    s.remove_prefix(b);
    std::size_t e = s.find_first_of(" \t");
    std::string_view tok = s.substr(0, e);
    s.remove_prefix(e == std::string_view::npos ? s.size() : e);
    return tok;
}

// Unsigned decimal at the start of s (leading blanks skipped); false if none or it overflows.
bool leading_decimal(std::string_view s, std::uint64_t &v) {
    std::size_t i = s.find_first_not_of(" \t");
    if (i == std::string_view::npos || s[i] < '0' || s[i] > '9') return false;
    v = 0;
    for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i) {
        unsigned d = unsigned(s[i] - '0');
        if (v > (UINT64_MAX - d) / 10) return false;
        v = v * 10 + d;
    }
    return true;
}

void add_name(std::string &list, std::string_view name) {
    if (name.empty() || list.find(name) != std::string::npos) return;
    if (!list.empty()) list += ",";
    list += name;
}
} // namespace

bool parse_heap_address(std::string_view text, std::uintptr_t automatic, std::uintptr_t align,
                        std::uintptr_t &out) {
    if (text == "auto") {
        out = automatic;
        return true;
    }
    if (text == "any") {
        out = 0;
        return true;
    }
    if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) text.remove_prefix(2);
    if (text.empty() || text.size() > 16) return false;
    std::uint64_t v = 0;
    for (char c : text) {
        unsigned d;
        if (c >= '0' && c <= '9') d = unsigned(c - '0');
        else if (c >= 'a' && c <= 'f') d = unsigned(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F') d = unsigned(c - 'A' + 10);
        else return false;
        v = v << 4 | d;
    }
    if (v == 0 || (align && v % align)) return false;
    out = std::uintptr_t(v);
    return true;
}

std::vector<int> sysv_ids_in_maps(std::string_view maps) {
    std::vector<int> ids;
    for_each_line(maps, [&](std::string_view line) {
        if (line.find("/SYSV") == std::string_view::npos) return true;
        // "start-end perms offset dev inode path": the fifth field.
        std::string_view rest = line;
        for (int i = 0; i < 4; ++i)
            if (next_token(rest).empty()) return true;
        std::uint64_t inode;
        if (!leading_decimal(next_token(rest), inode) || inode > INT32_MAX) return true;
        int id = int(inode);
        for (int seen : ids)
            if (seen == id) return true;
        ids.push_back(id);
        return true;
    });
    return ids;
}

std::size_t page_size_in_smaps(std::string_view smaps, std::uintptr_t addr) {
    char key[32];
    std::snprintf(key, sizeof key, "%" PRIxPTR "-", addr);
    bool in = false;
    std::size_t result = 0;
    for_each_line(smaps, [&](std::string_view line) {
        if (!in) {
            in = line.substr(0, std::string_view(key).size()) == key;
            return true;
        }
        // The first KernelPageSize after the mapping's header is its own (every mapping has one).
        constexpr std::string_view field = "KernelPageSize:";
        if (line.substr(0, field.size()) != field) return true;
        std::uint64_t kb;
        if (leading_decimal(line.substr(field.size()), kb) && kb <= (SIZE_MAX >> 10))
            result = std::size_t(kb) << 10;
        return false;
    });
    return result;
}

ucx_resources parse_ucx_resources(std::string_view text) {
    ucx_resources r;
    for_each_line(text, [&](std::string_view line) {
        std::size_t pos = line.find("flags --");
        if (pos == std::string_view::npos) return true;
        std::string_view rest = line.substr(pos + 8);
        std::string_view name = next_token(rest);
        if (name.empty()) return true;
        if (!r.names.empty()) r.names += ' ';
        r.names += name;
        auto starts = [&](std::string_view p) { return name.substr(0, p.size()) == p; };
        if (starts("sysv/") || starts("posix/")) r.shared_memory_rma = true;
        if (starts("rc_") || starts("dc_") || starts("gga")) r.network_rdma = true;
        return true;
    });
    return r;
}

ep_lanes parse_ep_lanes(std::string_view text) {
    // Lines of interest (UCX 1.13):
    //   "#  lane[0]:  8:sysv/memory.0 md[4]  -> md[4]/sysv/sysdev[255] rma_bw#0 am am_bw#0"
    //   "#   put[0]: ..." (the protocols of RMA lane 0; RMA lanes carry no class tag)
    constexpr std::size_t max_lanes = 64;  // UCX has at most 16; bounds what a bad index allocates
    ep_lanes r;
    std::vector<std::string> lane_res;  // resource of lane[i]
    for_each_line(text, [&](std::string_view line) {
        std::uint64_t index;
        std::size_t pp = line.find("put[");
        if (pp != std::string_view::npos && line.find("]:", pp) != std::string_view::npos) {
            if (leading_decimal(line.substr(pp + 4), index) && index < lane_res.size())
                add_name(r.rma, lane_res[index]);
            return true;
        }
        std::size_t lp = line.find("lane[");
        std::size_t arrow = line.find("->");
        if (lp == std::string_view::npos || arrow == std::string_view::npos || arrow < lp) return true;
        if (!leading_decimal(line.substr(lp + 5), index) || index >= max_lanes) return true;
        std::size_t colon = line.find(':', lp);
        if (colon == std::string_view::npos || colon > arrow) return true;
        // The resource: "8:sysv/memory.0" -> "sysv/memory.0".
        std::string_view head = line.substr(colon + 1, arrow - colon - 1);
        std::string_view res = next_token(head);
        if (std::size_t c = res.find(':'); c != std::string_view::npos) res = res.substr(c + 1);
        if (lane_res.size() <= index) lane_res.resize(index + 1);
        lane_res[index] = std::string(res);
        std::string_view tail = line.substr(arrow + 2);
        next_token(tail);  // the remote md/transport/device
        for (std::string_view tok = next_token(tail); !tok.empty(); tok = next_token(tail)) {
            std::string_view cls = tok.substr(0, tok.find('#'));
            if (cls == "rma" || cls == "rma_bw") add_name(r.rma, res);
            else if (cls == "amo") add_name(r.amo, res);
            else if (cls == "am" || cls == "am_bw") add_name(r.am, res);
        }
        return true;
    });
    // No RMA lane at all: UCX emulates puts, gets (and AMOs) over active messages, which needs
    // the target to progress (the case for a progress thread).
    if (r.rma.empty() && !r.am.empty()) r.rma = "emulated over AM";
    if (r.amo.empty() && !r.am.empty()) r.amo = "emulated over AM";
    return r;
}

bool meminfo_value(std::string_view meminfo, std::string_view field, std::uint64_t &out) {
    // "MemAvailable:   19454516 kB" / "HugePages_Free:     1988"
    bool found = false;
    for_each_line(meminfo, [&](std::string_view line) {
        if (line.size() <= field.size() || line.substr(0, field.size()) != field || line[field.size()] != ':')
            return true;
        std::string_view rest = line.substr(field.size() + 1);
        std::string_view number = next_token(rest), unit = next_token(rest);
        std::uint64_t v;
        if (number.find_first_not_of("0123456789") != std::string_view::npos ||
            !leading_decimal(number, v) || !next_token(rest).empty())
            return false;
        if (unit == "kB") {
            if (v > (UINT64_MAX >> 10)) return false;
            v <<= 10;
        } else if (!unit.empty()) {
            return false;
        }
        out = v;
        found = true;
        return false;
    });
    return found;
}

bool parse_proc_number(std::string_view text, std::uint64_t &out) {
    constexpr std::string_view blanks = " \t\n";
    std::size_t b = text.find_first_not_of(blanks);
    if (b == std::string_view::npos) return false;
    std::string_view digits = text.substr(b, text.find_last_not_of(blanks) - b + 1);
    if (digits.find_first_not_of("0123456789") != std::string_view::npos) return false;
    std::uint64_t v;
    if (!leading_decimal(digits, v)) return false;  // (refuses values above 64 bits)
    out = v;
    return true;
}

} // namespace ushmem::util

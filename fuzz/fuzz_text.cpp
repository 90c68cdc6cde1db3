// libFuzzer target for the parsers of what the kernel and UCX print (src/util/text.cpp); the
// environment's parsers are fuzz_env's.
//
// The first input byte chooses what is fed the rest:
//   0 parse_heap_address   1 sysv_ids_in_maps   2 page_size_in_smaps (address: the first line's
//   leading hex, so that the input can name a mapping it contains)   3 parse_ucx_resources
//   4 parse_ep_lanes   5 meminfo_value (field: the input's first line)   6 parse_proc_number
// Built with AddressSanitizer and UBSan; besides crashes it checks each result's invariants.
#include "util/text.hpp"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

using namespace ushmem::util;

namespace {
void check(bool ok, const char *what) {
    if (!ok) {
        std::fprintf(stderr, "fuzz_text: invariant broken: %s\n", what);
        std::abort();
    }
}

bool only_from(std::string_view out, std::string_view in, std::string_view extra) {
    for (char c : out)
        if (in.find(c) == std::string_view::npos && extra.find(c) == std::string_view::npos) return false;
    return true;
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
    if (size == 0) return 0;
    std::string_view in(reinterpret_cast<const char *>(data) + 1, size - 1);
    switch (data[0] % 7) {
    case 0: {
        constexpr std::uintptr_t automatic = 0x200000000000, align = 2u << 20;
        std::uintptr_t a = 12345;
        if (parse_heap_address(in, automatic, align, a)) {
            if (in == "auto") check(a == automatic, "auto gives the default address");
            else if (in == "any") check(a == 0, "any gives 0");
            else check(a != 0 && a % align == 0, "a hex address is a non-zero multiple of 2 MiB");
        }
        break;
    }
    case 1: {
        std::vector<int> ids = sysv_ids_in_maps(in);
        for (std::size_t i = 0; i < ids.size(); ++i) {
            check(ids[i] >= 0, "shmids are not negative");
            for (std::size_t j = 0; j < i; ++j) check(ids[i] != ids[j], "shmids are listed once");
        }
        break;
    }
    case 2: {
        std::uintptr_t addr = std::strtoull(std::string(in.substr(0, 16)).c_str(), nullptr, 16);
        std::size_t ps = page_size_in_smaps(in, addr);
        check(ps % 1024 == 0, "page sizes are whole KiB");
        break;
    }
    case 3: {
        ucx_resources r = parse_ucx_resources(in);
        check(only_from(r.names, in, " "), "resource names come from the input");
        break;
    }
    case 4: {
        ep_lanes l = parse_ep_lanes(in);
        const std::string_view emulated = "emulated over AM";
        check(l.rma == emulated || only_from(l.rma, in, ","), "RMA lanes come from the input");
        check(l.amo == emulated || only_from(l.amo, in, ","), "AMO lanes come from the input");
        check(only_from(l.am, in, ","), "AM lanes come from the input");
        break;
    }
    case 5: {
        const std::string_view field = in.substr(0, in.find('\n'));
        std::uint64_t v = 12345;
        if (meminfo_value(in, field, v))
            check(in.find(std::string(field) + ":") != std::string_view::npos, "a value comes from a field's line");
        else
            check(v == 12345, "a refused field leaves the value alone");
        break;
    }
    case 6: {
        std::uint64_t v = 12345;
        if (parse_proc_number(in, v))
            check(in.find_first_of("0123456789") != std::string_view::npos, "a number has digits");
        else
            check(v == 12345, "a refused number leaves the value alone");
        break;
    }
    }
    return 0;
}

// Helpers of the checks that PEs agree (settings at init, the heap at every collective memory
// call, team split arguments): a hash to compare things in one word, the combine of a MIN
// reduction (a max is the MIN of the complements), and a PE list for their messages.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ushmem::core {

// FNV-1a over bytes, words or text.
struct fnv1a {
    std::uint64_t h = 1469598103934665603ULL;
    fnv1a &add(const void *p, std::size_t n) {
        for (std::size_t i = 0; i < n; ++i) {
            h ^= static_cast<const unsigned char *>(p)[i];
            h *= 1099511628211ULL;
        }
        return *this;
    }
    fnv1a &add(std::uint64_t w) { return add(&w, sizeof w); }
    fnv1a &add(std::string_view s) { return add(s.data(), s.size()); }
};

// acc[i] = min(acc[i], x[i]) over n 64-bit words (a reduce_op of core/team.hpp).
inline void min_u64_combine(void *acc, const void *x, std::size_t n) {
    auto *a = static_cast<std::uint64_t *>(acc);
    auto *b = static_cast<const std::uint64_t *>(x);
    for (std::size_t i = 0; i < n; ++i) a[i] = std::min(a[i], b[i]);
}

// " 0-3,5" for a sorted list of PEs; after `max_runs` runs " and N more".
inline std::string pe_list(const std::vector<int> &pes, int max_runs = 16) {
    std::string s;
    int runs = 0;
    for (std::size_t i = 0; i < pes.size();) {
        std::size_t j = i;
        while (j + 1 < pes.size() && pes[j + 1] == pes[j] + 1) ++j;
        // Appended piece by piece: GCC 12 at -O3 reports a false -Wrestrict in `"-" + to_string()`.
        if (++runs > max_runs) {
            s.append(" and ").append(std::to_string(pes.size() - i)).append(" more");
            break;
        }
        s += s.empty() ? " " : ",";
        s += std::to_string(pes[i]);
        if (j > i) s.append("-").append(std::to_string(pes[j]));
        i = j + 1;
    }
    return s;
}

// Items grouped by equal keys, in the order of their first appearance: (key, indices).
template <class Key>
std::vector<std::pair<Key, std::vector<int>>> group_by(const std::vector<Key> &keys) {
    std::vector<std::pair<Key, std::vector<int>>> groups;
    for (int i = 0; i < int(keys.size()); ++i) {
        auto it = std::find_if(groups.begin(), groups.end(), [&](auto &g) { return g.first == keys[std::size_t(i)]; });
        if (it == groups.end()) groups.push_back({keys[std::size_t(i)], {i}});
        else it->second.push_back(i);
    }
    return groups;
}

} // namespace ushmem::core

// The layout of a put pack: many small puts to one PE in one message (core/put_pack.cpp). Over a
// transport that emulates RMA (UCX_TLS=tcp) each message costs the sender a system call of several
// microseconds, so a stream of 8-byte put_nbi's ran at one put per 5-7 us; packed, the stream
// costs a copy per put and a message per pack. Records follow one another, each 8-byte aligned:
//   u64 target address | u32 length | u32 kind | length bytes, padded to a multiple of 8.
// kind 0 stores the bytes (a put); the others apply a non-fetching atomic (core/atomic.cpp) to the
// 4- or 8-byte word there, aligned to its size, with the bytes as the operand: a non-fetching
// atomic to an emulated peer is one such record (sent at once, with the open pack if any).
// Separate from the core so that the unit tests can check the encoding and the checks of the
// receiving side without a runtime.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace ushmem::util::put_pack {

constexpr std::size_t head_bytes = 16;

// What a record does at the target.
enum class kind : std::uint32_t { put = 0, add = 1, band = 2, bor = 3, bxor = 4, set = 5 };
constexpr std::uint32_t kind_max = 5;

// Bytes one record of an n-byte put takes in a pack.
constexpr std::size_t record_bytes(std::size_t n) { return head_bytes + ((n + 7) & ~std::size_t(7)); }

// Writes the record of an n-byte put to `addr` at `at` (8-byte aligned) in `pack`, which must hold
// record_bytes(n) more bytes from there.
// `k`: an atomic's kind, with n 4 or 8 and src its operand.
inline void append(char *pack, std::size_t at, std::uint64_t addr, const void *src, std::size_t n,
                   kind k = kind::put) {
    char *p = pack + at;
    const std::uint32_t len[2] = {std::uint32_t(n), std::uint32_t(k)};
    std::memcpy(p, &addr, 8);
    std::memcpy(p + 8, len, 8);
    std::memcpy(p + head_bytes, src, n);
}

// Calls f(addr, data, len, kind) for each record of the n-byte pack, in order, once every record
// has passed valid(addr, len). Returns false, having called f for no record, when the pack is
// malformed (a record running past its end, an unknown kind, an atomic that is not one aligned
// 4- or 8-byte word) or a record is not valid: a pack comes from a peer of this job, so that is a
// bug of ours, and nothing of it may be written.
template <class Valid, class F> bool for_each(const void *pack, std::size_t n, Valid valid, F f) {
    const char *b = static_cast<const char *>(pack);
    for (int pass = 0; pass < 2; ++pass) {  // check all, then apply
        for (std::size_t at = 0; at < n;) {
            if (n - at < head_bytes) return false;
            std::uint64_t addr;
            std::uint32_t len[2];
            std::memcpy(&addr, b + at, 8);
            std::memcpy(len, b + at + 8, 8);
            if (len[1] > kind_max || record_bytes(len[0]) > n - at) return false;
            if (len[1] != 0 && ((len[0] != 4 && len[0] != 8) || (addr & (len[0] - 1)))) return false;
            if (pass == 0 && !valid(addr, std::size_t(len[0]))) return false;
            if (pass == 1) f(addr, b + at + head_bytes, std::size_t(len[0]), kind(len[1]));
            at += record_bytes(len[0]);
        }
    }
    return true;
}

// ---- get batches ---------------------------------------------------------------------------------
// Small get_nbi's from one PE, batched the same way (core/put_pack.cpp): one request lists them,
// and the target's reply carries their bytes back to back, in the request's order. A request is
// records of 16 bytes: u64 source address | u32 length | u32 0. Fetching non-blocking atomics
// (fetch_add_nbi, compare_swap_nbi, ...) join the same lists: their records name the operation in
// the last word and add two u64, the operand and the compare value (32 bytes); the target applies
// the atomic there and the reply carries the old value, the word's 4 or 8 bytes, in its place.
constexpr std::size_t get_record_bytes = 16;
constexpr std::size_t fetch_record_bytes = 32;

// What a record of a get batch does at the target.
enum class fetch_kind : std::uint32_t { get = 0, fetch = 1, swap = 2, cswap = 3, fetch_add = 4, fetch_and = 5,
                                        fetch_or = 6, fetch_xor = 7 };
constexpr std::uint32_t fetch_kind_max = 7;

inline void append_get(char *list, std::size_t at, std::uint64_t addr, std::uint32_t n) {
    const std::uint32_t len[2] = {n, 0};
    std::memcpy(list + at, &addr, 8);
    std::memcpy(list + at + 8, len, 8);
}

// The record of a fetching atomic on the n-byte (4 or 8) word at addr: `operand` is the value it
// adds, swaps in, ands, ors or xors (cswap: the new value), `cmp` cswap's expected value.
inline void append_fetch(char *list, std::size_t at, std::uint64_t addr, std::uint32_t n, fetch_kind k,
                         std::uint64_t operand, std::uint64_t cmp) {
    const std::uint32_t len[2] = {n, std::uint32_t(k)};
    std::memcpy(list + at, &addr, 8);
    std::memcpy(list + at + 8, len, 8);
    std::memcpy(list + at + 16, &operand, 8);
    std::memcpy(list + at + 24, &cmp, 8);
}

// Calls f(addr, len, kind, operand, cmp) for each record of the n-byte request, in order, once
// every record has passed valid(addr, len) and their lengths add up to `total` (the reply's size,
// which the request's header states). False, having called f for none, when they do not or the
// request is malformed (as for_each above: a bug of ours; an atomic's word must be 4 or 8 bytes,
// aligned).
template <class Valid, class F> bool for_each_get(const void *list, std::size_t n, std::size_t total, Valid valid, F f) {
    const char *b = static_cast<const char *>(list);
    std::size_t sum = 0;
    for (int pass = 0; pass < 2; ++pass) {  // check all, then apply
        for (std::size_t at = 0; at < n;) {
            if (n - at < get_record_bytes) return false;
            std::uint64_t addr;
            std::uint32_t len[2];
            std::memcpy(&addr, b + at, 8);
            std::memcpy(len, b + at + 8, 8);
            if (len[1] > fetch_kind_max) return false;
            const std::size_t rec = len[1] ? fetch_record_bytes : get_record_bytes;
            if (pass == 0) {
                if (rec > n - at || len[0] == 0 || !valid(addr, std::size_t(len[0]))) return false;
                if (len[1] && ((len[0] != 4 && len[0] != 8) || (addr & (len[0] - 1)))) return false;
                sum += len[0];
            } else {
                std::uint64_t operand = 0, cmp = 0;
                if (len[1]) {
                    std::memcpy(&operand, b + at + 16, 8);
                    std::memcpy(&cmp, b + at + 24, 8);
                }
                f(addr, std::size_t(len[0]), fetch_kind(len[1]), operand, cmp);
            }
            at += rec;
        }
        if (pass == 0 && sum != total) return false;
    }
    return true;
}

} // namespace ushmem::util::put_pack

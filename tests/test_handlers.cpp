// The target side of the messages that carry puts, signals, non-fetching atomics and get batches
// where UCX emulates RMA (core/messages.cpp: store_signal_message, count_acks,
// pack_gather_reply), called as UCX's handler would call them, on a symmetric segment that is a
// buffer of this test. The multi-process tests send real messages (mpi.put_pack, mpi.get_pack,
// mpi.signal, mpi.strided over tcp); these also reach what no well-formed peer sends: a message
// that must be refused loudly, before anything is written, is.
#include "core/messages.hpp"
#include "core/peers.hpp"
#include "core/runtime.hpp"
#include "transport/transport.hpp"
#include "util/put_pack.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

namespace core = ushmem::core;
namespace tp = ushmem::transport;
namespace pp = ushmem::util::put_pack;

namespace {
// The heap segment is this buffer while a test runs (the library is not initialized: nothing
// else reads it).
class Handlers : public ::testing::Test {
protected:
    alignas(64) unsigned char heap[4096] = {};
    std::uintptr_t saved_base = 0;
    std::size_t saved_size = 0;

    void SetUp() override {
        saved_base = core::rt.seg[core::seg_heap].base;
        saved_size = core::rt.seg[core::seg_heap].size;
        core::rt.seg[core::seg_heap].base = reinterpret_cast<std::uintptr_t>(heap);
        core::rt.seg[core::seg_heap].size = sizeof heap;
    }
    void TearDown() override {
        core::rt.seg[core::seg_heap].base = saved_base;
        core::rt.seg[core::seg_heap].size = saved_size;
    }

    std::uint64_t at(std::size_t off) const { return reinterpret_cast<std::uintptr_t>(heap) + off; }
    std::uint64_t word(std::size_t off) const {
        std::uint64_t v;
        std::memcpy(&v, heap + off, 8);
        return v;
    }
    static tp::signal_header header(std::uint64_t data, std::uint64_t sig, std::uint64_t value, tp::signal_op op,
                                    std::uint32_t elem = 0, std::uint64_t stride = 0) {
        return tp::signal_header{.data_addr = data, .sig_addr = sig, .value = value, .op = op, .elem = elem, .dst_stride = stride};
    }
    // A pack holding the records appended by `fill` (each call: at, then returns the new end).
    template <class F>
    static std::vector<char> pack(F fill) {
        std::vector<char> p(512);
        p.resize(fill(p.data()));
        return p;
    }
};

const char *const k_internal = "internal error";
} // namespace

// A pack's puts and atomics land in order, a later record to the same bytes winning.
TEST_F(Handlers, PackAppliesPutsAndAtomicsInOrder) {
    const std::uint64_t seven = 7, three = 3, bit = 0x100;
    const unsigned char bytes[5] = {1, 2, 3, 4, 5};
    auto p = pack([&](char *b) {
        std::size_t n = 0;
        pp::append(b, n, at(0), &seven, 8);
        n += pp::record_bytes(8);
        pp::append(b, n, at(0), &three, 8, pp::kind::add);  // 7 + 3
        n += pp::record_bytes(8);
        pp::append(b, n, at(0), &bit, 8, pp::kind::bxor);   // 10 ^ 0x100
        n += pp::record_bytes(8);
        pp::append(b, n, at(100), bytes, 5);
        n += pp::record_bytes(5);
        return n;
    });
    core::store_signal_message(header(0, 0, 0, tp::signal_op::pack), p.data(), p.size());
    EXPECT_EQ(word(0), (7u + 3u) ^ 0x100u);
    EXPECT_EQ(std::memcmp(heap + 100, bytes, 5), 0);
}

// Data, then the signal after it: contiguous, and strided (the elements dst_stride apart).
TEST_F(Handlers, SignalMessageStoresDataThenSignal) {
    heap[512] = 0;
    std::memcpy(heap + 64, "\x05\0\0\0\0\0\0\0", 8);
    const char data[6] = "hello";
    core::store_signal_message(header(at(200), at(64), 2, tp::signal_op::add), data, 6);
    EXPECT_STREQ(reinterpret_cast<const char *>(heap + 200), "hello");
    EXPECT_EQ(word(64), 7u);

    const std::uint32_t elems[3] = {11, 22, 33};
    core::store_signal_message(header(at(1024), at(64), 40, tp::signal_op::set, 4, 16), elems, sizeof elems);
    std::uint32_t got[3];
    for (int i = 0; i < 3; ++i) std::memcpy(&got[i], heap + 1024 + 16 * i, 4);
    EXPECT_EQ(got[0], 11u);
    EXPECT_EQ(got[1], 22u);
    EXPECT_EQ(got[2], 33u);
    EXPECT_EQ(word(64), 40u);
}

// A record of an unknown kind: the whole pack is refused and the job ends, naming it.
TEST_F(Handlers, UnknownRecordKindEndsTheJob) {
    const std::uint64_t v = 1;
    auto p = pack([&](char *b) {
        pp::append(b, 0, at(0), &v, 8);
        pp::append(b, pp::record_bytes(8), at(8), &v, 8, pp::kind(pp::kind_max + 1));
        return 2 * pp::record_bytes(8);
    });
    EXPECT_EXIT(core::store_signal_message(header(0, 0, 0, tp::signal_op::pack), p.data(), p.size()),
                ::testing::ExitedWithCode(1), "put pack .*internal error: a malformed put pack of 48 bytes");
}

// A pack cut short (its last record's bytes missing), and a pack that carries a signal address.
TEST_F(Handlers, MalformedPackEndsTheJob) {
    const std::uint64_t v = 1;
    auto p = pack([&](char *b) {
        pp::append(b, 0, at(0), &v, 8);
        return pp::record_bytes(8);
    });
    EXPECT_EXIT(core::store_signal_message(header(0, 0, 0, tp::signal_op::pack), p.data(), p.size() - 4),
                ::testing::ExitedWithCode(1), "malformed put pack");
    EXPECT_EXIT(core::store_signal_message(header(0, at(64), 0, tp::signal_op::pack), p.data(), p.size()),
                ::testing::ExitedWithCode(1), "malformed put pack");
}

// A packed put outside this PE's segments (a bug of the sender's address arithmetic).
TEST_F(Handlers, PackedPutOutsideTheSegmentsEndsTheJob) {
    const std::uint64_t v = 1;
    auto p = pack([&](char *b) {
        pp::append(b, 0, at(sizeof heap - 4), &v, 8);
        return pp::record_bytes(8);
    });
    EXPECT_EXIT(core::store_signal_message(header(0, 0, 0, tp::signal_op::pack), p.data(), p.size()),
                ::testing::ExitedWithCode(1), "packed put to .* lies outside this PE's symmetric segments");
}

// Signal messages: data past the segment's end, a misaligned or outside signal word, a strided
// message whose bytes are not whole elements.
TEST_F(Handlers, MalformedSignalMessageEndsTheJob) {
    const char data[16] = {};
    struct bad {
        tp::signal_header h;
        std::size_t n;
    };
    for (const bad &b : {bad{header(at(sizeof heap - 8), at(64), 1, tp::signal_op::add), 16},
                         bad{header(at(0), at(66), 1, tp::signal_op::add), 8},
                         bad{header(at(0), at(sizeof heap), 1, tp::signal_op::set), 8},
                         bad{header(at(0), at(64), 1, tp::signal_op::add, 3, 8), 16},
                         bad{header(at(sizeof heap - 16), 0, 0, tp::signal_op::add, 4, 16), 16}}) {
        EXPECT_EXIT(core::store_signal_message(b.h, data, b.n), ::testing::ExitedWithCode(1),
                    "signal message .*internal error: a signal message for .* lies outside this PE's symmetric "
                    "segments")
            << "data " << b.h.data_addr - at(0) << " signal " << b.h.sig_addr - at(0) << " elem " << b.h.elem;
    }
}

// An acknowledgement from a rank that is not a PE of the job: dropped, with a message (the
// counts are untouched; they do not exist before init).
TEST_F(Handlers, AcknowledgementFromNoPeIsDroppedLoudly) {
    ::testing::internal::CaptureStderr();
    core::count_acks(3, 1);
    const std::string err = ::testing::internal::GetCapturedStderr();
    EXPECT_NE(err.find(k_internal), std::string::npos) << err;
    EXPECT_NE(err.find("an acknowledgement from PE 3"), std::string::npos) << err;
}

// ---- get batches: the target's side (messages.cpp, pack_gather_reply) ------------------------------

namespace {
std::vector<char> get_list(std::initializer_list<std::pair<std::uint64_t, std::uint32_t>> gets) {
    std::vector<char> l;
    for (const auto &[addr, n] : gets) {
        l.resize(l.size() + pp::get_record_bytes);
        pp::append_get(l.data(), l.size() - pp::get_record_bytes, addr, n);
    }
    return l;
}
tp::gather_header list_header(std::size_t reply) { return tp::gather_header{0, reply, 7, 0, 0}; }
} // namespace

// The listed gets' bytes, back to back in the list's order (the same bytes twice included).
TEST_F(Handlers, GetBatchRepliesWithTheBytesInOrder) {
    for (std::size_t i = 0; i < sizeof heap; ++i) heap[i] = static_cast<unsigned char>(i * 7);
    const auto l = get_list({{at(100), 3}, {at(8), 8}, {at(100), 1}});
    std::vector<unsigned char> out(12, 0xee);
    core::pack_gather_reply(list_header(12), l.data(), l.size(), out.data());
    const unsigned char want[12] = {heap[100], heap[101], heap[102], heap[8],  heap[9],  heap[10],
                                    heap[11],  heap[12],  heap[13],  heap[14], heap[15], heap[100]};
    EXPECT_EQ(std::memcmp(out.data(), want, 12), 0);
}

// Fetching atomics in a batch, between gets: each runs where it stands in the list (a get after
// it reads its result) and its old value takes its place in the reply.
TEST_F(Handlers, GetBatchRunsFetchingAtomicsInOrder) {
    std::uint64_t w64 = 40;
    std::uint32_t w32 = 0xf0f0f0f0u;
    std::memcpy(heap + 64, &w64, 8);
    std::memcpy(heap + 128, &w32, 4);
    std::vector<char> l(2 * pp::fetch_record_bytes + pp::get_record_bytes + 3 * pp::fetch_record_bytes);
    std::size_t o = 0;
    pp::append_fetch(l.data(), o, at(64), 8, pp::fetch_kind::fetch_add, 2, 0), o += pp::fetch_record_bytes;
    pp::append_fetch(l.data(), o, at(64), 8, pp::fetch_kind::cswap, 100, 42), o += pp::fetch_record_bytes;
    pp::append_get(l.data(), o, at(64), 8), o += pp::get_record_bytes;
    pp::append_fetch(l.data(), o, at(64), 8, pp::fetch_kind::cswap, 7, 42), o += pp::fetch_record_bytes;  // no match
    pp::append_fetch(l.data(), o, at(128), 4, pp::fetch_kind::fetch_xor, 0xffu, 0), o += pp::fetch_record_bytes;
    pp::append_fetch(l.data(), o, at(128), 4, pp::fetch_kind::swap, 5, 0), o += pp::fetch_record_bytes;
    ASSERT_EQ(o, l.size());
    unsigned char out[8 * 4 + 4 * 2];
    core::pack_gather_reply(list_header(sizeof out), l.data(), l.size(), out);
    std::uint64_t r64[4];
    std::uint32_t r32[2];
    std::memcpy(r64, out, 32);
    std::memcpy(r32, out + 32, 8);
    EXPECT_EQ(r64[0], 40u);   // fetch_add 2: old 40
    EXPECT_EQ(r64[1], 42u);   // cswap 42 -> 100: old 42
    EXPECT_EQ(r64[2], 100u);  // the get after it
    EXPECT_EQ(r64[3], 100u);  // cswap 42 -> 7 fails: old 100
    EXPECT_EQ(r32[0], 0xf0f0f0f0u);
    EXPECT_EQ(r32[1], 0xf0f0f00fu);
    std::memcpy(&w64, heap + 64, 8);
    std::memcpy(&w32, heap + 128, 4);
    EXPECT_EQ(w64, 100u);
    EXPECT_EQ(w32, 5u);
}

// A batched atomic on a word that is not 4 or 8 bytes or not aligned to its size, one cut short,
// an unknown operation: the job ends with the handler's message.
TEST_F(Handlers, MalformedBatchedAtomicEndsTheJob) {
    std::uint64_t w = 9;
    std::memcpy(heap + 64, &w, 8);
    unsigned char out[16];
    const auto one = [this](std::uint64_t addr, std::uint32_t n, pp::fetch_kind k) {
        std::vector<char> l(pp::fetch_record_bytes);
        pp::append_fetch(l.data(), 0, addr, n, k, 1, 0);
        return l;
    };
    const auto bad_size = one(at(64), 2, pp::fetch_kind::fetch_add);
    EXPECT_EXIT(core::pack_gather_reply(list_header(2), bad_size.data(), bad_size.size(), out),
                ::testing::ExitedWithCode(1), "malformed get batch request");
    const auto misaligned = one(at(68), 8, pp::fetch_kind::fetch_add);
    EXPECT_EXIT(core::pack_gather_reply(list_header(8), misaligned.data(), misaligned.size(), out),
                ::testing::ExitedWithCode(1), "malformed get batch request");
    const auto ok = one(at(64), 8, pp::fetch_kind::fetch_add);
    EXPECT_EXIT(core::pack_gather_reply(list_header(8), ok.data(), ok.size() - 16, out),
                ::testing::ExitedWithCode(1), "malformed get batch request");
    auto unknown = one(at(64), 8, pp::fetch_kind::fetch_add);
    const std::uint32_t k = pp::fetch_kind_max + 1;
    std::memcpy(unknown.data() + 12, &k, 4);
    EXPECT_EXIT(core::pack_gather_reply(list_header(8), unknown.data(), unknown.size(), out),
                ::testing::ExitedWithCode(1), "malformed get batch request");
}

// A get outside the segments, a list whose lengths do not add up to the stated reply, a list cut
// short, a zero-length record: the job ends with the handler's message, nothing copied.
TEST_F(Handlers, MalformedGetBatchEndsTheJob) {
    std::vector<unsigned char> out(64);
    const auto outside = get_list({{at(0), 8}, {at(sizeof heap - 4), 8}});
    EXPECT_EXIT(core::pack_gather_reply(list_header(16), outside.data(), outside.size(), out.data()),
                ::testing::ExitedWithCode(1), "get batch .*internal error: a batched get of .* lies outside");
    const auto two = get_list({{at(0), 8}, {at(8), 8}});
    EXPECT_EXIT(core::pack_gather_reply(list_header(24), two.data(), two.size(), out.data()),
                ::testing::ExitedWithCode(1), "get batch .*internal error: a malformed get batch request \\(32 bytes");
    EXPECT_EXIT(core::pack_gather_reply(list_header(8), two.data(), two.size() - 8, out.data()),
                ::testing::ExitedWithCode(1), "malformed get batch request");
    const auto empty = get_list({{at(0), 0}});
    EXPECT_EXIT(core::pack_gather_reply(list_header(0), empty.data(), empty.size(), out.data()),
                ::testing::ExitedWithCode(1), "malformed get batch request");
}

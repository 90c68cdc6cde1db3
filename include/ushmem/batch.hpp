// ushmem C++ API: batches. Queue puts, gets and fetching atomics to any PEs, submit() them at
// once, wait on one event.
#pragma once

#include <ushmem/rma.hpp>

#include <vector>

namespace ushmem {

// Each operation is validated when it is queued (PE range, symmetric address range, null
// pointers, atomic alignment); an invalid one throws invalid_argument whose message names its
// index ("batch operation #N") and is not queued. submit() issues every queued operation
// (non-blocking forms) and returns an event: a per-PE quiet when all the operations target one
// PE, otherwise a quiet of the context. submit() may be called again (the operations are issued
// again); clear() empties the batch. Buffers must stay valid until the submitted event completes.
// The batch counts its operations per target PE as they are queued (and the gets and fetching
// atomics among them); the event carries the counts (for several PEs shared, allocated once per
// change of the batch), so that a timed-out wait lists each incomplete PE with the operations
// issued to it and those known complete.
class batch {
public:
    explicit batch(shmem_ctx_t ctx = SHMEM_CTX_DEFAULT) : ctx_(ctx) {}

    std::size_t size() const noexcept { return ops_.size(); }
    void clear() noexcept {
        ops_.clear();
        counts_.pes.clear();
        counts_.issued.clear();
        counts_.fetches.clear();
        slot_.clear();
        spill_.reset();
    }

    // Raw forms: `dest`/`src` are symmetric addresses as seen on this PE.
    template <class T> std::size_t put(int pe, T *dest, const T *src, std::size_t n) {
        validate(pe, dest, n * sizeof(T), alignof(T), src, "put");
        return push({&issue_put, pe, dest, const_cast<T *>(src), n * sizeof(T), {}, {}, 0, false});
    }
    template <class T> std::size_t get(int pe, T *dest, const T *src, std::size_t n) {
        validate(pe, src, n * sizeof(T), alignof(T), dest, "get");
        return push({&issue_get, pe, const_cast<T *>(src), dest, n * sizeof(T), {}, {}, 0, true});
    }
    template <class T> std::size_t put(sym_span<T> dst, std::type_identity_t<std::span<const T>> src) {
        if (src.size() > dst.size()) [[unlikely]]
            fail(ops_.size(), "put", "source larger than destination");
        return put(dst.pe(), dst.data(), src.data(), src.size());
    }
    // dst: a std::span, std::vector, std::array... of T (symmetric with put).
    template <class T> std::size_t get(std::type_identity_t<std::span<T>> dst, sym_span<T> src) {
        if (src.size() > dst.size()) [[unlikely]]
            fail(ops_.size(), "get", "source larger than destination");
        return get(src.pe(), dst.data(), src.data(), src.size());
    }

    // One element, from a value: the value is copied at once (a put that returns when its
    // source is reusable), so it need not outlive the call; complete at the target with the event.
    template <class T> std::size_t put(sym_ptr<T> dst, value_of<T> v) {
        validate(dst.pe(), dst.address(), sizeof(T), alignof(T), &v.v, "put");
        op o{&issue_put_value, dst.pe(), dst.address(), nullptr, sizeof(T), {}, {}, 0, false};
        if constexpr (sizeof(T) <= sizeof(o.a)) {
            std::memcpy(o.a, &v.v, sizeof(T));
        } else {
            static_assert(sizeof(T) <= sizeof(o.a), "ushmem: batch::put of one element takes at most 8 bytes; "
                                                    "use put(sym_span, span)");
        }
        return push(o);
    }
    // Put, then update the signal word `sig` (on the same PE) once the data has arrived
    // (shmem_putmem_signal_nbi).
    template <class T>
    std::size_t put_signal(sym_span<T> dst, std::type_identity_t<std::span<const T>> src, sym_ptr<std::uint64_t> sig,
                           std::uint64_t value, signal_op sop = signal_op::set) {
        if (src.size() > dst.size()) [[unlikely]]
            fail(ops_.size(), "put_signal", "source larger than destination");
        if (sig.pe() != dst.pe()) [[unlikely]]
            fail(ops_.size(), "put_signal",
                 "signal on PE " + std::to_string(sig.pe()) + ", data to PE " + std::to_string(dst.pe()));
        validate(dst.pe(), dst.data(), src.size_bytes(), alignof(T), src.data(), "put_signal");
        validate(sig.pe(), sig.address(), sizeof(std::uint64_t), sizeof(std::uint64_t), &value, "put_signal");
        // The signal address and operation ride in the operand slots.
        op o{&issue_put_signal, dst.pe(), dst.data(), const_cast<T *>(src.data()), src.size_bytes(), {}, {}, 0, false};
        std::uint64_t *sa = sig.address();
        static_assert(sizeof(sa) <= sizeof(o.a));
        std::memcpy(o.a, &sa, sizeof(sa));
        std::memcpy(o.b, &value, sizeof(value));
        o.sig_op = int(sop);
        return push(o);
    }

    // Non-fetching atomics: nothing comes back, no result slot (complete at the target with the
    // event, as puts).
    template <class T> std::size_t add(sym_ptr<T> p, value_of<T> v) {
        static_assert(amo_std_type<T>, "ushmem: add is not supported for this type");
        if constexpr (!amo_std_type<T>) std::terminate();  // (the static_assert alone: see USHMEM_CXX_REQUIRE)
        else return amo<T>(p, &dummy<T>, v, v, "add", [](const op &o, shmem_ctx_t c) {
            shmem_atomic_add(c, static_cast<T *>(o.remote), arg<T>(o.a), o.pe);
        }, false);
    }
    template <class T> std::size_t inc(sym_ptr<T> p) {
        static_assert(amo_std_type<T>, "ushmem: inc is not supported for this type");
        if constexpr (!amo_std_type<T>) std::terminate();  // (the static_assert alone: see USHMEM_CXX_REQUIRE)
        else return amo<T>(p, &dummy<T>, T{}, T{}, "inc", [](const op &o, shmem_ctx_t c) {
            shmem_atomic_inc(c, static_cast<T *>(o.remote), o.pe);
        }, false);
    }
    // Atomic store (shmem_atomic_set).
    template <class T> std::size_t set(sym_ptr<T> p, value_of<T> v) {
        static_assert(amo_ext_type<T>, "ushmem: set is not supported for this type");
        if constexpr (!amo_ext_type<T>) std::terminate();  // (the static_assert alone: see USHMEM_CXX_REQUIRE)
        else return amo<T>(p, &dummy<T>, v, v, "set", [](const op &o, shmem_ctx_t c) {
            shmem_atomic_set(c, static_cast<T *>(o.remote), arg<T>(o.a), o.pe);
        }, false);
    }

    // Fetching atomics: the old value is written to *result when the event completes.
    template <class T> std::size_t fetch_add(sym_ptr<T> p, value_of<T> v, T *result) {
        static_assert(amo_std_type<T>, "ushmem: fetch_add is not supported for this type");
        if constexpr (!amo_std_type<T>) std::terminate();  // (the static_assert alone: see USHMEM_CXX_REQUIRE)
        else return amo<T>(p, result, v, v, "fetch_add", [](const op &o, shmem_ctx_t c) {
            shmem_atomic_fetch_add_nbi(c, static_cast<T *>(o.local), static_cast<T *>(o.remote),
                                       arg<T>(o.a), o.pe);
        });
    }
    template <class T>
    std::size_t compare_swap(sym_ptr<T> p, value_of<T> cond, value_of<T> v,
                             T *result) {
        static_assert(amo_std_type<T>, "ushmem: compare_swap is not supported for this type");
        if constexpr (!amo_std_type<T>) std::terminate();  // (the static_assert alone: see USHMEM_CXX_REQUIRE)
        else return amo<T>(p, result, cond, v, "compare_swap", [](const op &o, shmem_ctx_t c) {
            shmem_atomic_compare_swap_nbi(c, static_cast<T *>(o.local), static_cast<T *>(o.remote),
                                          arg<T>(o.a), arg<T>(o.b), o.pe);
        });
    }
    template <class T> std::size_t swap(sym_ptr<T> p, value_of<T> v, T *result) {
        static_assert(amo_ext_type<T>, "ushmem: swap is not supported for this type");
        if constexpr (!amo_ext_type<T>) std::terminate();  // (the static_assert alone: see USHMEM_CXX_REQUIRE)
        else return amo<T>(p, result, v, v, "swap", [](const op &o, shmem_ctx_t c) {
            shmem_atomic_swap_nbi(c, static_cast<T *>(o.local), static_cast<T *>(o.remote),
                                  arg<T>(o.a), o.pe);
        });
    }
    template <class T> std::size_t load(sym_ptr<T> p, T *result) {
        static_assert(amo_ext_type<T>, "ushmem: load is not supported for this type");
        if constexpr (!amo_ext_type<T>) std::terminate();  // (the static_assert alone: see USHMEM_CXX_REQUIRE)
        else return amo<T>(p, result, T{}, T{}, "load", [](const op &o, shmem_ctx_t c) {
            shmem_atomic_fetch_nbi(c, static_cast<T *>(o.local), static_cast<const T *>(o.remote),
                                   o.pe);
        });
    }

    event submit() const {
        for (const op &o : ops_) o.issue(o, ctx_);
        const std::size_t n = counts_.pes.size();
        if (n == 0) return {ctx_, -1};
        if (n == 1 && counts_.issued[0] <= UINT32_MAX)
            return {ctx_, counts_.pes[0], std::uint32_t(counts_.issued[0]), std::uint32_t(counts_.fetches[0])};
        if (!spill_) spill_ = std::make_shared<const detail::pe_counts>(counts_);
        return {ctx_, spill_};
    }
    // The PEs targeted, in order of first use, and the operations queued to each.
    std::span<const int> target_pes() const noexcept { return counts_.pes; }
    std::span<const std::size_t> counts() const noexcept { return counts_.issued; }

private:
    struct op {
        void (*issue)(const op &, shmem_ctx_t);
        int pe;
        void *remote;
        void *local;
        std::size_t bytes;
        unsigned char a[8];
        unsigned char b[8];
        int sig_op = 0;     // put_signal: signal_op
        bool fetch = true;  // a get or fetching atomic (counted for pe_progress::completed)
    };
    template <class T> static inline T dummy{};  // the unused result slot of non-fetching atomics
    template <class T> static T arg(const unsigned char *raw) {
        T v;
        std::memcpy(&v, raw, sizeof(T));
        return v;
    }
    static void issue_put(const op &o, shmem_ctx_t c) {
        shmem_ctx_putmem_nbi(c, o.remote, o.local, o.bytes, o.pe);
    }
    static void issue_put_value(const op &o, shmem_ctx_t c) {
        shmem_ctx_putmem(c, o.remote, o.a, o.bytes, o.pe);
    }
    static void issue_put_signal(const op &o, shmem_ctx_t c) {
        std::uint64_t *sig;
        std::uint64_t value;
        std::memcpy(&sig, o.a, sizeof(sig));
        std::memcpy(&value, o.b, sizeof(value));
        shmem_ctx_putmem_signal_nbi(c, o.remote, o.local, o.bytes, sig, value, o.sig_op, o.pe);
    }
    static void issue_get(const op &o, shmem_ctx_t c) {
        shmem_ctx_getmem_nbi(c, o.local, o.remote, o.bytes, o.pe);
    }
    [[noreturn]] static void fail(std::size_t index, const char *kind, const std::string &why) {
        detail::throw_invalid("batch operation #" + std::to_string(index) + " (" + std::string(kind) + ")", why);
    }
    void validate(int pe, const void *remote, std::size_t bytes, std::size_t align,
                  const void *local, const char *kind) const {
        if (local == nullptr && bytes != 0) fail(ops_.size(), kind, "null local buffer");
        std::string why = detail::why_invalid(remote, bytes ? bytes : 1, align, pe);
        if (!why.empty()) fail(ops_.size(), kind, why + " (PE " + std::to_string(pe) + ")");
    }
    std::size_t push(const op &o) {
        ops_.push_back(o);
        // Count it for its PE (slot_: index in counts_ by PE, grown on demand).
        const std::size_t pe = std::size_t(o.pe);
        if (pe >= slot_.size()) slot_.resize(pe + 1, -1);
        if (slot_[pe] < 0) {
            slot_[pe] = int(counts_.pes.size());
            counts_.pes.push_back(o.pe);
            counts_.issued.push_back(0);
            counts_.fetches.push_back(0);
        }
        const std::size_t i = std::size_t(slot_[pe]);
        ++counts_.issued[i];
        if (o.fetch) ++counts_.fetches[i];  // gets and the fetching atomics
        spill_.reset();
        return ops_.size() - 1;
    }
    template <class T>
    std::size_t amo(sym_ptr<T> p, T *result, T a, T b, const char *kind,
                    void (*issue)(const op &, shmem_ctx_t), bool fetch = true) {
        static_assert(sizeof(T) <= 8);
        if (result == nullptr) fail(ops_.size(), kind, "null result pointer");
        validate(p.pe(), p.address(), sizeof(T), sizeof(T), result, kind);
        op o{issue, p.pe(), p.address(), result, sizeof(T), {}, {}, 0, fetch};
        std::memcpy(o.a, &a, sizeof(T));
        std::memcpy(o.b, &b, sizeof(T));
        return push(o);
    }

    shmem_ctx_t ctx_;
    std::vector<op> ops_;
    detail::pe_counts counts_;
    std::vector<int> slot_;
    mutable std::shared_ptr<const detail::pe_counts> spill_;  // counts_ as the events share them
};

} // namespace ushmem

// ushmem C++ API: which element types each C routine family supports, from the type tables of
// <ushmem/c/types.h> (the same tables that declare the C routines).
#pragma once

#include <shmem.h>

#include <type_traits>
#include <utility>

namespace ushmem::detail {

#define USHMEM_CXX_IS(T, N, U) || std::is_same_v<U, T>
template <class U> inline constexpr bool in_rma_types = false USHMEM_RMA_TYPES(USHMEM_CXX_IS, U);
template <class U> inline constexpr bool in_amo_std = false USHMEM_AMO_STD_TYPES(USHMEM_CXX_IS, U);
template <class U> inline constexpr bool in_amo_ext = false USHMEM_AMO_EXT_TYPES(USHMEM_CXX_IS, U);
template <class U>
inline constexpr bool in_amo_bitwise = false USHMEM_AMO_BITWISE_TYPES(USHMEM_CXX_IS, U);
template <class U> inline constexpr bool in_p2p = false USHMEM_P2P_TYPES(USHMEM_CXX_IS, U);
template <class U>
inline constexpr bool in_reduce_bitwise = false USHMEM_REDUCE_BITWISE_TYPES(USHMEM_CXX_IS, U);
template <class U>
inline constexpr bool in_reduce_minmax = false USHMEM_REDUCE_MINMAX_TYPES(USHMEM_CXX_IS, U);
template <class U>
inline constexpr bool in_reduce_arith = false USHMEM_REDUCE_ARITH_TYPES(USHMEM_CXX_IS, U);
#undef USHMEM_CXX_IS

// A value of type U stored into an element of type T (put, store, swap, the atomics' operands)
// loses nothing by its type: not a floating value into an integer (3.7 would store 3), not a wider
// floating or integer type into a narrower one. Integer to floating, and sign changes between
// integers of the same or a wider width, pass (an int literal for a long or unsigned long
// element, -1 for a wrapping add). Any other type must convert implicitly to T.
template <class U, class T>
inline constexpr bool storable_as = [] {
    using V = std::remove_cvref_t<U>;
    if constexpr (std::is_same_v<V, T>) return true;
    else if constexpr (std::is_arithmetic_v<V> && std::is_arithmetic_v<T>) {
        if constexpr (std::is_same_v<T, bool> || std::is_same_v<V, bool>) return false;
        else if constexpr (std::is_floating_point_v<V>)
            return std::is_floating_point_v<T> && sizeof(V) <= sizeof(T);
        else if constexpr (std::is_floating_point_v<T>) return true;
        else return sizeof(V) <= sizeof(T);
    } else
        return std::is_convertible_v<const V &, T>;
}();

// The value argument of the typed routines: takes a T, or a value of another type that converts to
// T without loss by its type (storable_as); any other fails to compile with the message below,
// instead of converting silently. Never deduces T (the element type comes from the sym_ptr).
template <class T> struct value_arg {
    T v;
    template <class U>
        requires std::is_convertible_v<const U &, T>
    constexpr value_arg(const U &u) noexcept(std::is_nothrow_convertible_v<const U &, T>)  // NOLINT: implicit by design
        : v(static_cast<T>(u)) {
        static_assert(storable_as<U, T>,
                      "ushmem: the value's type would be converted with loss to the element type "
                      "(e.g. a double stored into an int element); pass a value of the element type, "
                      "or convert explicitly with static_cast");
    }
    constexpr operator const T &() const noexcept { return v; }
};

} // namespace ushmem::detail

namespace ushmem {
// The value argument of put(sym_ptr<T>, v), store, swap, the atomics and batch operations.
template <class T> using value_of = std::type_identity_t<detail::value_arg<T>>;
// Types usable with load/store/swap (extended AMO table).
template <class T> inline constexpr bool amo_ext_type = detail::in_amo_ext<std::remove_cv_t<T>>;
// Types usable with fetch_add/compare_swap/inc (standard AMO table).
template <class T> inline constexpr bool amo_std_type = detail::in_amo_std<std::remove_cv_t<T>>;
// Types usable with fetch_and/or/xor (bitwise AMO table).
template <class T>
inline constexpr bool amo_bitwise_type = detail::in_amo_bitwise<std::remove_cv_t<T>>;
// Types usable with wait_until/test (point-to-point synchronization table).
template <class T> inline constexpr bool p2p_type = detail::in_p2p<std::remove_cv_t<T>>;
// Types usable with reduce<bit_and/bit_or/bit_xor>, reduce<min/max>, reduce<sum/prod> and the scans
// (the team reduction tables).
template <class T>
inline constexpr bool reduce_bitwise_type = detail::in_reduce_bitwise<std::remove_cv_t<T>>;
template <class T>
inline constexpr bool reduce_minmax_type = detail::in_reduce_minmax<std::remove_cv_t<T>>;
template <class T>
inline constexpr bool reduce_arith_type = detail::in_reduce_arith<std::remove_cv_t<T>>;
} // namespace ushmem

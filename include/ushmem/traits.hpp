// ushmem C++ API: which element types each C routine family supports, from the type tables of
// <ushmem/c/types.h> (the same tables that declare the C routines).
#pragma once

#include <shmem.h>

#include <type_traits>

namespace ushmem::detail {

#define USHMEM_CXX_IS(T, N, U) || std::is_same_v<U, T>
template <class U> inline constexpr bool in_rma_types = false USHMEM_RMA_TYPES(USHMEM_CXX_IS, U);
template <class U> inline constexpr bool in_amo_std = false USHMEM_AMO_STD_TYPES(USHMEM_CXX_IS, U);
template <class U> inline constexpr bool in_amo_ext = false USHMEM_AMO_EXT_TYPES(USHMEM_CXX_IS, U);
template <class U>
inline constexpr bool in_amo_bitwise = false USHMEM_AMO_BITWISE_TYPES(USHMEM_CXX_IS, U);
template <class U> inline constexpr bool in_p2p = false USHMEM_P2P_TYPES(USHMEM_CXX_IS, U);
#undef USHMEM_CXX_IS

} // namespace ushmem::detail

namespace ushmem {
// Types usable with load/store/swap (extended AMO table).
template <class T> inline constexpr bool amo_ext_type = detail::in_amo_ext<std::remove_cv_t<T>>;
// Types usable with fetch_add/compare_swap/inc (standard AMO table).
template <class T> inline constexpr bool amo_std_type = detail::in_amo_std<std::remove_cv_t<T>>;
// Types usable with fetch_and/or/xor (bitwise AMO table).
template <class T>
inline constexpr bool amo_bitwise_type = detail::in_amo_bitwise<std::remove_cv_t<T>>;
// Types usable with wait_until/test (point-to-point synchronization table).
template <class T> inline constexpr bool p2p_type = detail::in_p2p<std::remove_cv_t<T>>;
} // namespace ushmem

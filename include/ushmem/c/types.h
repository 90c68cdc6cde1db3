/* ushmem: the type tables of OpenSHMEM 1.6, defined once.
 *
 * Every typed C routine (declaration, definition, pshmem alias, C11 generic and C++ overload) is
 * generated from these X-macro tables, so adding a type is one line here. Each entry is
 * X(C type, TYPENAME as it appears in routine names, A), where A is whatever the user of the table
 * passes through (usually the routine family), so one entry macro serves many families. */
#ifndef USHMEM_C_TYPES_H
#define USHMEM_C_TYPES_H

#include <stddef.h>
#include <stdint.h>

/* Table "Standard RMA Types and Names". */
#define USHMEM_RMA_TYPES(X, A)          \
    X(float, float, A)                  \
    X(double, double, A)                \
    X(long double, longdouble, A)       \
    X(char, char, A)                    \
    X(signed char, schar, A)            \
    X(short, short, A)                  \
    X(int, int, A)                      \
    X(long, long, A)                    \
    X(long long, longlong, A)           \
    X(unsigned char, uchar, A)          \
    X(unsigned short, ushort, A)        \
    X(unsigned int, uint, A)            \
    X(unsigned long, ulong, A)          \
    X(unsigned long long, ulonglong, A) \
    X(int8_t, int8, A)                  \
    X(int16_t, int16, A)                \
    X(int32_t, int32, A)                \
    X(int64_t, int64, A)                \
    X(uint8_t, uint8, A)                \
    X(uint16_t, uint16, A)              \
    X(uint32_t, uint32, A)              \
    X(uint64_t, uint64, A)              \
    X(size_t, size, A)                  \
    X(ptrdiff_t, ptrdiff, A)

/* The subset of the RMA types that are distinct C types (no typedefs of one another), which is
 * what a C11 _Generic selection or a C++ overload set can tell apart. */
#define USHMEM_RMA_GENERIC_TYPES(X, A)  \
    X(float, float, A)                  \
    X(double, double, A)                \
    X(long double, longdouble, A)       \
    X(char, char, A)                    \
    X(signed char, schar, A)            \
    X(short, short, A)                  \
    X(int, int, A)                      \
    X(long, long, A)                    \
    X(long long, longlong, A)           \
    X(unsigned char, uchar, A)          \
    X(unsigned short, ushort, A)        \
    X(unsigned int, uint, A)            \
    X(unsigned long, ulong, A)          \
    X(unsigned long long, ulonglong, A)

/* Sized RMA routines: X(bits, bytes, A). */
#define USHMEM_RMA_SIZES(X, A) X(8, 1, A) X(16, 2, A) X(32, 4, A) X(64, 8, A) X(128, 16, A)

/* Table "Standard AMO Types and Names". */
#define USHMEM_AMO_STD_TYPES(X, A)      \
    X(int, int, A)                      \
    X(long, long, A)                    \
    X(long long, longlong, A)           \
    X(unsigned int, uint, A)            \
    X(unsigned long, ulong, A)          \
    X(unsigned long long, ulonglong, A) \
    X(int32_t, int32, A)                \
    X(int64_t, int64, A)                \
    X(uint32_t, uint32, A)              \
    X(uint64_t, uint64, A)              \
    X(size_t, size, A)                  \
    X(ptrdiff_t, ptrdiff, A)

/* Table "Extended AMO Types and Names": the standard ones plus float and double. */
#define USHMEM_AMO_EXT_TYPES(X, A) \
    X(float, float, A)             \
    X(double, double, A)           \
    USHMEM_AMO_STD_TYPES(X, A)

/* Table "Bitwise AMO Types and Names". */
#define USHMEM_AMO_BITWISE_TYPES(X, A)  \
    X(unsigned int, uint, A)            \
    X(unsigned long, ulong, A)          \
    X(unsigned long long, ulonglong, A) \
    X(int32_t, int32, A)                \
    X(int64_t, int64, A)                \
    X(uint32_t, uint32, A)              \
    X(uint64_t, uint64, A)

/* Table "Point-to-Point Synchronization Types and Names". */
#define USHMEM_P2P_TYPES(X, A)          \
    X(short, short, A)                  \
    X(int, int, A)                      \
    X(long, long, A)                    \
    X(long long, longlong, A)           \
    X(unsigned short, ushort, A)        \
    X(unsigned int, uint, A)            \
    X(unsigned long, ulong, A)          \
    X(unsigned long long, ulonglong, A) \
    X(int32_t, int32, A)                \
    X(int64_t, int64, A)                \
    X(uint32_t, uint32, A)              \
    X(uint64_t, uint64, A)              \
    X(size_t, size, A)                  \
    X(ptrdiff_t, ptrdiff, A)

/* The subsets of the AMO and point-to-point tables that are distinct C types, for the C11 generic
 * selections and the C++ overload sets (int32_t, int64_t, uint32_t, uint64_t, size_t and ptrdiff_t
 * are typedefs of these on LP64 Linux). The bitwise table has no int or long, so its int32_t and
 * int64_t entries are distinct there and select the exact-width routines. */
#define USHMEM_AMO_STD_GENERIC_TYPES(X, A) \
    X(int, int, A)                         \
    X(long, long, A)                       \
    X(long long, longlong, A)              \
    X(unsigned int, uint, A)               \
    X(unsigned long, ulong, A)             \
    X(unsigned long long, ulonglong, A)

#define USHMEM_AMO_EXT_GENERIC_TYPES(X, A) \
    X(float, float, A)                     \
    X(double, double, A)                   \
    USHMEM_AMO_STD_GENERIC_TYPES(X, A)

#define USHMEM_AMO_BITWISE_GENERIC_TYPES(X, A) \
    X(unsigned int, uint, A)                   \
    X(unsigned long, ulong, A)                 \
    X(unsigned long long, ulonglong, A)        \
    X(int32_t, int32, A)                       \
    X(int64_t, int64, A)

#define USHMEM_P2P_GENERIC_TYPES(X, A) \
    X(short, short, A)                 \
    X(unsigned short, ushort, A)       \
    USHMEM_AMO_STD_GENERIC_TYPES(X, A)

/* Deprecated AMO names (shmem_TYPENAME_fetch/set/swap, and cswap/finc/inc/fadd/add) and the
 * deprecated shmem_TYPENAME_wait: the types the specification lists for them. */
#define USHMEM_AMO_DEPR_EXT_TYPES(X, A) \
    X(float, float, A)                  \
    X(double, double, A)                \
    USHMEM_AMO_DEPR_STD_TYPES(X, A)
#define USHMEM_AMO_DEPR_STD_TYPES(X, A) \
    X(int, int, A)                      \
    X(long, long, A)                    \
    X(long long, longlong, A)
#define USHMEM_P2P_DEPR_WAIT_TYPES(X, A) \
    X(short, short, A)                   \
    USHMEM_AMO_DEPR_STD_TYPES(X, A)


/* ---- Collectives (teams, reductions, scans) ---- */

/* Complex types, where the C translation environment has them. */
#if defined(__cplusplus) || !defined(__STDC_NO_COMPLEX__)
#define USHMEM_COMPLEX_TYPES(X, A)  \
    X(double _Complex, complexd, A) \
    X(float _Complex, complexf, A)
#else
#define USHMEM_COMPLEX_TYPES(X, A)
#endif

/* Table "Reduction Types, Names, and Supporting Operations for Team-Based Reductions", by the
 * operations a type supports: AND/OR/XOR, MAX/MIN, SUM/PROD (the last also for scans). */
#define USHMEM_REDUCE_BITWISE_TYPES(X, A) \
    X(unsigned char, uchar, A)            \
    X(unsigned short, ushort, A)          \
    X(unsigned int, uint, A)              \
    X(unsigned long, ulong, A)            \
    X(unsigned long long, ulonglong, A)   \
    X(int8_t, int8, A)                    \
    X(int16_t, int16, A)                  \
    X(int32_t, int32, A)                  \
    X(int64_t, int64, A)                  \
    X(uint8_t, uint8, A)                  \
    X(uint16_t, uint16, A)                \
    X(uint32_t, uint32, A)                \
    X(uint64_t, uint64, A)                \
    X(size_t, size, A)
#define USHMEM_REDUCE_MINMAX_TYPES(X, A) \
    X(char, char, A)                     \
    X(signed char, schar, A)             \
    X(short, short, A)                   \
    X(int, int, A)                       \
    X(long, long, A)                     \
    X(long long, longlong, A)            \
    X(ptrdiff_t, ptrdiff, A)             \
    USHMEM_REDUCE_BITWISE_TYPES(X, A)    \
    X(float, float, A)                   \
    X(double, double, A)                 \
    X(long double, longdouble, A)
#define USHMEM_REDUCE_ARITH_TYPES(X, A) \
    USHMEM_REDUCE_MINMAX_TYPES(X, A)    \
    USHMEM_COMPLEX_TYPES(X, A)

/* Table "Reduction Types, Names and Supporting Operations for Active-Set-Based Reductions". */
#define USHMEM_TO_ALL_BITWISE_TYPES(X, A) \
    X(short, short, A)                    \
    X(int, int, A)                        \
    X(long, long, A)                      \
    X(long long, longlong, A)
#define USHMEM_TO_ALL_MINMAX_TYPES(X, A) \
    USHMEM_TO_ALL_BITWISE_TYPES(X, A)    \
    X(float, float, A)                   \
    X(double, double, A)                 \
    X(long double, longdouble, A)
#define USHMEM_TO_ALL_ARITH_TYPES(X, A) \
    USHMEM_TO_ALL_MINMAX_TYPES(X, A)    \
    USHMEM_COMPLEX_TYPES(X, A)

/* The distinct C types of the team reduction tables, for the C11 generic selections and the C++
 * overload sets. int8_t..int64_t are signed char, short, int and long on LP64 Linux, so the
 * bitwise table reaches those through the exact-width routines. */
#define USHMEM_REDUCE_BITWISE_GENERIC_TYPES(X, A) \
    X(unsigned char, uchar, A)                    \
    X(unsigned short, ushort, A)                  \
    X(unsigned int, uint, A)                      \
    X(unsigned long, ulong, A)                    \
    X(unsigned long long, ulonglong, A)           \
    X(int8_t, int8, A)                            \
    X(int16_t, int16, A)                          \
    X(int32_t, int32, A)                          \
    X(int64_t, int64, A)
#define USHMEM_REDUCE_MINMAX_GENERIC_TYPES(X, A) \
    X(char, char, A)                             \
    X(signed char, schar, A)                     \
    X(short, short, A)                           \
    X(int, int, A)                               \
    X(long, long, A)                             \
    X(long long, longlong, A)                    \
    X(unsigned char, uchar, A)                   \
    X(unsigned short, ushort, A)                 \
    X(unsigned int, uint, A)                     \
    X(unsigned long, ulong, A)                   \
    X(unsigned long long, ulonglong, A)          \
    X(float, float, A)                           \
    X(double, double, A)                         \
    X(long double, longdouble, A)
#define USHMEM_REDUCE_ARITH_GENERIC_TYPES(X, A) \
    USHMEM_REDUCE_MINMAX_GENERIC_TYPES(X, A)    \
    USHMEM_COMPLEX_TYPES(X, A)

#endif

"""ushmem loaded into Python with ctypes (dlopen), as shmem4py and other bindings load it.

Usage: python3 dlopen.py PATH/TO/libushmem.so

Runs RMA (put/get on the symmetric heap), atomics (every PE fetch-adds to PE 0's counter) and a
collective (sum reduction over SHMEM_TEAM_WORLD), checking every value; prints
"dlopen.py: PE <me> of <n>: OK". Debian's /usr/bin/python3 is a non-PIE program whose free() is
called by every library through the program's own GOT: shmem_init used to crash there
(docs/python.md, "Why dlopen used to crash").
"""
import ctypes
import sys

if len(sys.argv) != 2:
    sys.exit("usage: dlopen.py PATH/TO/libushmem.so")
lib = ctypes.CDLL(sys.argv[1], mode=ctypes.RTLD_GLOBAL)

c_long_p = ctypes.POINTER(ctypes.c_long)
lib.shmem_malloc.restype = ctypes.c_void_p
lib.shmem_malloc.argtypes = [ctypes.c_size_t]
lib.shmem_free.argtypes = [ctypes.c_void_p]
lib.shmem_long_put.argtypes = [c_long_p, c_long_p, ctypes.c_size_t, ctypes.c_int]
lib.shmem_long_get.argtypes = [c_long_p, c_long_p, ctypes.c_size_t, ctypes.c_int]
lib.shmem_long_atomic_fetch_add.restype = ctypes.c_long
lib.shmem_long_atomic_fetch_add.argtypes = [c_long_p, ctypes.c_long, ctypes.c_int]
lib.shmem_long_sum_reduce.restype = ctypes.c_int
lib.shmem_long_sum_reduce.argtypes = [ctypes.c_void_p, c_long_p, c_long_p, ctypes.c_size_t]
lib.shmem_global_exit.argtypes = [ctypes.c_int]
# SHMEM_TEAM_WORLD is the address of a library object (include/shmem.h).
team_world = ctypes.addressof(ctypes.c_char.in_dll(lib, "ushmem_team_world_"))

lib.shmem_init()
me, n = lib.shmem_my_pe(), lib.shmem_n_pes()
right, left = (me + 1) % n, (me + n - 1) % n
failures = []


def expect(cond, what):
    if not cond:
        failures.append(what)
        print(f"FAIL dlopen.py [PE {me} of {n}]: {what}", file=sys.stderr, flush=True)


def symmetric_longs(count):
    addr = lib.shmem_malloc(count * ctypes.sizeof(ctypes.c_long))
    if not addr:
        print(f"FAIL dlopen.py [PE {me} of {n}]: shmem_malloc returned NULL", file=sys.stderr)
        lib.shmem_global_exit(1)
    return ctypes.cast(addr, c_long_p), addr


# RMA: each PE puts 4 numbers to its right neighbour, then gets them back.
heap, heap_addr = symmetric_longs(4)
mine = (ctypes.c_long * 4)(*[1000 * me + i for i in range(4)])
lib.shmem_barrier_all()
lib.shmem_long_put(heap, mine, 4, right)
lib.shmem_barrier_all()
for i in range(4):
    expect(heap[i] == 1000 * left + i, f"heap[{i}] = {heap[i]} after the put from PE {left}, expected {1000 * left + i}")
got = (ctypes.c_long * 4)()
lib.shmem_long_get(got, heap, 4, right)
for i in range(4):
    expect(got[i] == 1000 * me + i, f"get from PE {right}: got[{i}] = {got[i]}, expected {1000 * me + i}")
lib.shmem_barrier_all()

# Atomics: every PE adds me+1 to PE 0's counter.
counter, counter_addr = symmetric_longs(1)
counter[0] = 0
lib.shmem_barrier_all()
total = n * (n + 1) // 2
before = lib.shmem_long_atomic_fetch_add(counter, me + 1, 0)
expect(0 <= before < total, f"fetch_add returned {before}")
lib.shmem_barrier_all()
if me == 0:
    expect(counter[0] == total, f"counter {counter[0]} after every PE's fetch_add, expected {total}")

# A collective: the sum of every PE's number.
src, src_addr = symmetric_longs(1)
dst, dst_addr = symmetric_longs(1)
src[0], dst[0] = me + 1, -1
rc = lib.shmem_long_sum_reduce(team_world, dst, src, 1)
expect(rc == 0, f"shmem_long_sum_reduce returned {rc}")
expect(dst[0] == total, f"sum_reduce gave {dst[0]}, expected {total}")

lib.shmem_barrier_all()
for addr in (dst_addr, src_addr, counter_addr, heap_addr):
    lib.shmem_free(addr)
if failures:
    lib.shmem_global_exit(1)
print(f"dlopen.py: PE {me} of {n}: OK", flush=True)
lib.shmem_finalize()

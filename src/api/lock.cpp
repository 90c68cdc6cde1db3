// Distributed locking routines (MCS queue lock; see core/lock.cpp).
#include "api/api.hpp"
#include "core/atomic.hpp"

using namespace ushmem;

USHMEM_DEF(void, shmem_set_lock, (long *lock)) { core::set_lock("shmem_set_lock", lock); }
USHMEM_DEF(int, shmem_test_lock, (long *lock)) { return core::test_lock("shmem_test_lock", lock); }
USHMEM_DEF(void, shmem_clear_lock, (long *lock)) { core::clear_lock("shmem_clear_lock", lock); }

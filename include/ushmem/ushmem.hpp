// ushmem: the C++20 interface to OpenSHMEM 1.6. Header-only, layered on <shmem.h>; see
// docs/cpp.md.
//
//   ushmem::runtime rt;                        // shmem_init / shmem_finalize
//   ushmem::symmetric<long> a(16);             // collective allocation
//   auto e = ushmem::put_async(a.on(peer), local);   // [[nodiscard]] event
//   e.wait();                                  // quiet of that PE only
#pragma once

#include <ushmem/error.hpp>
#include <ushmem/traits.hpp>
#include <ushmem/memory.hpp>
#include <ushmem/rma.hpp>
#include <ushmem/batch.hpp>
#include <ushmem/compose.hpp>
#include <ushmem/team.hpp>
#include <ushmem/dist_array.hpp>
#include <ushmem/dist_object.hpp>
#include <ushmem/collectives.hpp>
#include <ushmem/coro.hpp>
#include <ushmem/wait.hpp>
#include <ushmem/rpc.hpp>

// transport/am/receive.hpp: what the core installs to run ushmem's messages on arrival (the
// signal handler, the get packer and receiver, the bulk destination check), and the tests' faults.
#pragma once

#include "transport/am/wire.hpp"

#include <cstddef>
#include <cstdint>

namespace ushmem::transport {

// Runs in the progress of the main worker (the PE's or the progress thread's) for each message.
using signal_handler = void (*)(const signal_header &h, const void *data, std::size_t n);
void set_signal_handler(signal_handler h);  // before create_worker()
// Target side: whether [addr, addr + n) lies in this PE's symmetric segments (installed by the core
// before create_worker()): a bulk message's destination is checked before anything is received.
using bulk_checker = bool (*)(std::uint64_t addr, std::size_t n);
void set_bulk_checker(bulk_checker check);
using gather_packer = void (*)(const gather_header &h, const void *data, std::size_t n, void *out);
// Initiator side: the reply to `cookie`, n bytes packed.
using gather_receiver = void (*)(std::uint64_t cookie, const void *data, std::size_t n);
void set_gather_handlers(gather_packer pack, gather_receiver receive);  // before create_worker()
// A fault for the tests (USHMEM_TEST_FAULT=short_get_replies): replies to get batches (elem 0) go
// one byte short, so that a test sees the initiator notice it.
void inject_short_batch_replies();
// A fault for the tests (USHMEM_TEST_FAULT=reject_bulk): this PE takes every bulk message for one
// outside its segments, so that a test sees the sender's transfer fail, naming this PE.
void inject_rejected_bulk();

} // namespace ushmem::transport

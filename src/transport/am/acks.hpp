// transport/am/acks.hpp: acknowledgements of ushmem's messages: owed by the target after its
// handlers ran, batched per sender, sent after the progress call (or carried by a message), and
// received by the sender (set_ack_handler).
#pragma once

#include "transport/am/wire.hpp"
#include "transport/shared_state.hpp"

#include <cstdint>

namespace ushmem::transport {

// Acknowledgements. A message that asks for one is acknowledged once its handler has run, but
// not from inside the handler: the target owes it until the progress call that ran the handler
// returns, and then sends one acknowledgement per sender for all the messages of that call, which
// carries their number. A stream of small puts over tcp costs the target a send (and the sender a
// receive) per batch the target finds, not per put. It goes out through the target's own endpoint
// to the sender (`endpoint_of`, from the core, which creates it when the target had none): UCX's
// reply endpoint may be one UCX destroys inside that same progress call (a sender that died), and
// a message sent without UCX's reply flag is a plain short message, one copy and one send.
// `me`: this PE's rank, which its acknowledgements carry; `receive(from, n)` runs on the sender in
// progress of its main worker. `npes`: the PEs a message may come from.
// signal_header::ack: the kind in its low 8 bits. ack_owed: owed, then sent as above, to the
// sender's main worker, which adds it to the counts of stream `ack >> 8`: 0 for its own, else a
// context's own worker's (create_extra_worker). A context's own worker is not the one peers
// connect to, so its acknowledgements travel to the main worker too, batched the same way; the
// handler there adds them to the context's counts and signals its worker, on whose fd the
// context's waits sleep (own_wait_scope). ack_reply (sent with UCX's reply flag): the target
// answers at once, from inside the handler, on UCX's reply endpoint (valid there), so the answer
// shares the message's connection; it arrives on the sending worker, which adds it to the counts
// given at its creation. The core asks for it for a context's first message to a PE after a
// completion (a put + quiet), and where no stream is left.
// ack_lazy (put_signal's and signal updates' messages to the main worker): owed as ack_owed, but
// the progress call that ran the handler does not send it; the next one does (on any thread), or
// before that a message this PE sends to the sender carries it (signal_header::acks), all the
// owed ones of that PE with it. A signal's receiver usually waits for it and answers at once: a
// ping-pong of put_signal over tcp sent an acknowledgement before every answer, a system call on
// the critical path of each leg (one way 20.4-21.2 us against 6.9-8.4 without, 2 PEs, one node).
using ack_receiver = void (*)(std::uint32_t from, std::uint32_t n);
void set_ack_handler(ack_receiver receive, std::uint32_t me, std::uint32_t npes);  // before create_worker()
// The endpoint to PE `pe` for its acknowledgements. Until it is set (init, before the core's peers
// exist) acknowledgements stay owed; after stop_acks() (finalize, before the endpoints close: no
// PE waits for one any more) they are dropped.
void set_ack_endpoint(ack_endpoint endpoint_of);
void stop_acks();
// Sends what the last progress calls' handlers owe (ack_lazy: what was owed before the last call).
void send_owed_acks();
// After every progress of the main worker, outside its lock (endpoint_of may create an endpoint,
// which takes it): one load when nothing is owed.
inline void settle_acks() {
    if (__builtin_expect(detail::shared.acks_owed.load(std::memory_order_relaxed), 0)) send_owed_acks();
}
// The acknowledgements owed now become lazy ones owed by this progress call (ack_lazy): the next
// call sends them, or a message to their PE before it carries them.
void defer_owed_acks();
// Whether acknowledgements may be held lazily (ack_lazy, progress_answering): only where every PE
// has a progress thread, which sends them once its PE has left the library (set at init).
void allow_lazy_acks(bool on);

} // namespace ushmem::transport

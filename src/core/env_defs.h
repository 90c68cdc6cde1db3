// Every environment variable ushmem reads, defined once:
//   USHMEM_ENV(field, "NAME", kind, "default", "min", "max", "description")
// min, max: the valid range of a size, integer or seconds value, inclusive, in the kind's own
//       syntax ("64K", "0.5"); "" for no bound (max) and for the other kinds. Checked at load: a
//       value outside ends the job at init, so the code never clamps. The description states it.
// kind: size (bytes; K/M/G/T suffixes, binary), boolean (0/1/yes/no/on/off/true/false),
//       integer, seconds (decimal, 0 = off), choice (a word from the list in the description).
// The settings struct, the parser, SHMEM_INFO's listing and the docs table all come from here.
USHMEM_ENV(symmetric_size, "SHMEM_SYMMETRIC_SIZE", size, "64M", "1", "",
           "Bytes of symmetric heap per PE (at least 1; K/M/G/T suffixes): the initial size of a heap that grows (USHMEM_HEAP_GROW, the default), the whole heap otherwise. Backed by 2 MiB huge pages when the pool has them. The same on every PE (checked at init, as is that the machine can hold it).")
USHMEM_ENV(heap_grow, "USHMEM_HEAP_GROW", boolean, "1", "", "",
           "Grow the symmetric heap when a collective allocation does not fit: every PE maps the next chunk(s) (USHMEM_HEAP_CHUNK) at the same address, up to USHMEM_HEAP_MAX; SHMEM_SYMMETRIC_SIZE is then the initial size. Existing blocks never move. Needs the heap at the same address on every PE (USHMEM_HEAP_ADDRESS not 'any'). 0: the fixed heap of SHMEM_SYMMETRIC_SIZE, as before. The same on every PE (checked at init).")
USHMEM_ENV(heap_max, "USHMEM_HEAP_MAX", size, "0", "0", "",
           "Bytes of address space reserved for the symmetric heap per PE, the most it can grow to (USHMEM_HEAP_GROW; K/M/G/T suffixes). Reserving costs no memory: chunks are only backed when mapped. 0 (default): the node's memory divided by its PEs, at most 64G and at least the initial heap. A value below the initial heap leaves no room to grow. The same on every PE (checked at init).")
USHMEM_ENV(heap_chunk, "USHMEM_HEAP_CHUNK", size, "64M", "2M", "1T",
           "Bytes by which the symmetric heap grows (USHMEM_HEAP_GROW): a power of two from 2M to 1T; a larger allocation maps a multiple of it at once, one UCX memory handle per growth. Each growth costs a collective exchange; a peer's per-chunk table costs 64 bytes per chunk of the reservation (USHMEM_HEAP_MAX / this) once that peer's grown heap is used. The same on every PE (checked at init).")
USHMEM_ENV(debug, "SHMEM_DEBUG", boolean, "0", "", "",
           "Enable costly argument checks (e.g. overlapping buffers, also in a put or get to the PE itself; the same arguments on every PE of a symmetric allocation, collective or team split) and debug messages. The same on every PE (checked at init).")
USHMEM_ENV(info, "SHMEM_INFO", boolean, "0", "", "",
           "Print every setting with its value, the heap backing and the transports at init (PE 0).")
USHMEM_ENV(version, "SHMEM_VERSION", boolean, "0", "", "",
           "Print the library version at init (PE 0).")
USHMEM_ENV(direct, "USHMEM_DIRECT", boolean, "1", "", "",
           "Reach same-node PEs by direct load/store through a mapping of their heap. 0 sends everything through UCX.")
USHMEM_ENV(progress_thread, "USHMEM_PROGRESS_THREAD", choice, "auto", "", "",
           "auto|on|off. A thread that progresses UCX so that software-emulated RMA (e.g. UCX_TLS=tcp) completes while the target computes. auto: only when a transport needs it.")
USHMEM_ENV(signal_messages, "USHMEM_SIGNAL_MESSAGES", choice, "auto", "", "",
           "auto|on|off. Send signals (collectives, put_signal) to a PE reached through UCX as active messages that carry the data with them, rather than as a put, a fence and a remote atomic; strided puts (iput, ibput, alltoalls) as such messages too, many elements each, and strided gets (iget, ibget) as a request and a packed reply, rather than a put or get per element. auto: where UCX emulates RMA and atomics with messages anyway (e.g. UCX_TLS=tcp), which saves the atomic's reply and the fence.")
USHMEM_ENV(acked_messages, "USHMEM_ACKED_MESSAGES", boolean, "1", "", "",
           "Where a PE's RMA is emulated (signal messages, USHMEM_SIGNAL_MESSAGES), send the program's puts up to 64 KiB, put-with-signal and strided puts to it as messages that it acknowledges (on every context, private ones included), and complete them (quiet, fence's flush) by counting the acknowledgements: a put + quiet is then a message and its acknowledgement, where UCX's emulated put and endpoint flush take four messages. Non-fetching atomics go the same way. 0: UCX puts, atomics and endpoint flushes.")
USHMEM_ENV(put_pack, "USHMEM_PUT_PACK", size, "4K", "0", "64K",
           "Bytes of a context's put pack (0 to 64K; 0, or too few for one 8-byte put (24): off). Where puts go as acknowledged messages (USHMEM_ACKED_MESSAGES), non-blocking puts (put_nbi) of up to an eighth of this many bytes to one PE are packed, one message for many: over tcp each message costs a system call of microseconds; get_nbi's of that size are batched likewise, one request and one reply for many. A pack leaves when it is full, at the context's next other operation to that PE, when its slot is needed for another PE (USHMEM_PUT_PACK_PES), at fence, quiet and pe_quiet, and when the thread that filled it waits or tests (wait_until, test, barrier, a blocking get...): until then the puts are only locally complete, as the specification allows. At SHMEM_THREAD_MULTIPLE only on private contexts (SHMEM_CTX_PRIVATE).")
USHMEM_ENV(put_pack_pes, "USHMEM_PUT_PACK_PES", integer, "8", "1", "64",
           "PEs a context keeps a put pack open to at once (1 to 64; USHMEM_PUT_PACK bytes each, allocated on first use): put_nbi's that alternate between up to this many PEs are packed per PE; a put_nbi to one more PE sends one of them (round robin). 1: one pack at a time, sent at a put_nbi to another PE.")
USHMEM_ENV(put_pack_hold, "USHMEM_PUT_PACK_HOLD", seconds, "0.001", "0", "3600",
           "Seconds (0 to 3600) a put pack (USHMEM_PUT_PACK) may stay open while its thread adds nothing to it before the progress thread sends it: a thread that computes after its put_nbi's, without calling the library, then still gets them delivered. 0: only the thread's own next call sends it. Only where a progress thread runs (the target must run UCX progress for a put to land); checked at the thread's looks, so a pack opened while the thread is parked for longer waits for the end of that park (at most 32 x USHMEM_PROGRESS_HANDOFF).")
USHMEM_ENV(put_pack_blocking, "USHMEM_PUT_PACK_BLOCKING", boolean, "0", "", "",
           "Pack blocking puts of up to an eighth of USHMEM_PUT_PACK bytes and non-fetching atomics too, as put_nbi's are: a stream of them to one PE then costs one message, not one each (over tcp each is a system call of microseconds). Their delivery then waits for the pack to leave: the program's next operation to that PE, a fence, quiet, wait or test, or the progress thread after USHMEM_PUT_PACK_HOLD; the specification only promises it at quiet, but a program that sets a flag with a blocking put and then computes sees it arrive up to that much later. Off by default for that reason. Needs a progress thread and USHMEM_PUT_PACK_HOLD > 0 (otherwise ignored).")
USHMEM_ENV(inflight_msgs, "USHMEM_INFLIGHT_MSGS", integer, "4096", "0", "",
           "The most acknowledged messages (USHMEM_ACKED_MESSAGES: puts, put packs, signals, strided puts, atomics) this PE keeps unacknowledged to one PE, per UCX worker (0 or more; 0: no bound). A message beyond it progresses and waits for acknowledgements first, and that wait obeys USHMEM_WAIT_TIMEOUT, naming the PE: a target that stops (SIGSTOP, a debugger, a swapped-out node) then stops its senders instead of growing their memory without end (over tcp, 4 KiB puts grew a sender by 3.3 GiB in 10 s). A live target acknowledges within its next progress call (its progress thread's, USHMEM_PROGRESS_HANDOFF), far sooner than a sender issues thousands of messages (microseconds each over tcp): the default never slows normal traffic. A put_nbi stream of small puts travels in packs (USHMEM_PUT_PACK), many puts per message.")
USHMEM_ENV(inflight_bytes, "USHMEM_INFLIGHT_BYTES", size, "64M", "0", "",
           "The most bytes of messages to one PE (header, data, a little bookkeeping; all of this PE's workers and contexts, the collectives' included) that this PE holds while UCX has not sent them (K/M/G/T suffixes; 0: no bound). An acknowledged message that would pass it waits as for USHMEM_INFLIGHT_MSGS; one is always let through when none is held. Over a live connection the kernel takes them at once, and they are held only while a target does not read (stopped, or overloaded): what a stopped target costs each sender in memory. Messages the program lends (a put_nbi of more than 2 KiB is sent from its source) hold only their header.")
USHMEM_ENV(bulk_min, "USHMEM_BULK_MIN", size, "512K", "0", "",
           "Bytes (0 or more). Where a PE's RMA is emulated (signal messages, USHMEM_SIGNAL_MESSAGES), the program's puts and the collectives' transfers of at least this many bytes to it go as one message by UCX's rendezvous: the receiver names the destination first, and the data then comes in fragments that it copies straight into place, sent from where they are; UCX's emulated puts, large eager messages and a collective's put, fence and remote atomic cost a copy more or a round trip more. Such a call returns once its data has left (a put_nbi's too). The handshake costs a round trip, so smaller transfers keep the other paths. Not used on a node with more PEs than CPUs unless set (the PEs would wait for each other's handshakes in turn), nor when UCX_MAX_EAGER_RAILS is above 1 (the fragments would not stay in order with what follows). 0: off.")
USHMEM_ENV(progress_handoff, "USHMEM_PROGRESS_HANDOFF", seconds, "0.0001", "0", "3600",
           "Seconds (0 to 3600) after a PE's last call that drives UCX (a wait, a quiet) before its progress thread takes over serving the peers' requests to it. While the PE waits in the library it serves them itself and the thread stays asleep, so that arriving messages do not wake it for nothing; the period doubles (up to 32x) while the PE keeps progressing, so that the thread's looks do not take the PE's core in a communication loop.")
USHMEM_ENV(heap_address, "USHMEM_HEAP_ADDRESS", string, "auto", "", "",
           "Virtual address of the symmetric heap on every PE (hex), 'auto' for the built-in one, or 'any' to let each PE choose (addresses then translated per PE).")
USHMEM_ENV(static_data, "USHMEM_STATIC_DATA", boolean, "1", "", "",
           "Make the program's global and static data symmetric by moving it onto UCX-allocated shared memory at init. 0 registers it in place (slower same-node access).")
USHMEM_ENV(hugepage_notice, "USHMEM_HUGEPAGE_NOTICE", boolean, "1", "", "",
           "Print a one-line notice when the heap could not get huge pages.")
USHMEM_ENV(quiet_ep_max, "USHMEM_QUIET_EP_MAX", integer, "16", "1", "",
           "Quiet flushes each PE with outstanding operations up to this many PEs (at least 1), and the whole UCX worker above it.")
USHMEM_ENV(stats, "USHMEM_STATS", boolean, "0", "", "",
           "Count operations and bytes per kind and target PE, and time quiet, waits and collectives; every PE prints its table at finalize. Off: no measurable cost.")
USHMEM_ENV(wait_timeout, "USHMEM_WAIT_TIMEOUT", seconds, "0", "0", "1e9",
           "Seconds (0 to 1e9) after which a blocking wait or barrier that has not completed ends the job with a message naming what it waited for. 0: wait forever.")
USHMEM_ENV(wait_policy, "USHMEM_WAIT_POLICY", string, "auto", "", "",
           "auto|spin|block|yield. What a waiting PE does after its first spin (docs/architecture.md, Waiting). spin: keep its CPU (no sched_yield), block after USHMEM_WAIT_SPIN; block: sleep on a futex word that the PE completing the wait wakes; yield: sched_yield every poll (the old behaviour). auto: block on a node with more PEs than CPUs, else spin.")
USHMEM_ENV(wait_spin, "USHMEM_WAIT_SPIN", string, "auto", "", "",
           "Seconds a wait spins before the policy's sleep: auto is 0.002 for spin (a CPU per PE), 5e-6 for block.")
USHMEM_ENV(finalize_notice, "USHMEM_FINALIZE_NOTICE", seconds, "10", "0", "1e9",
           "Seconds (0 to 1e9) a PE waits in shmem_finalize (or the implicit finalize of a program that exits without it) before it prints a notice naming the PEs that have not reached finalize; repeated at doubling intervals. 0: no notice.")
USHMEM_ENV(peer_failure, "USHMEM_PEER_FAILURE", boolean, "1", "", "",
           "Ask UCX to detect dead peers on its endpoints (UCP_ERR_HANDLING_MODE_PEER): a PE whose endpoint to another fails ends the job with a message naming the unreachable PE. 0: plain endpoints (the launcher alone notices a death).")
USHMEM_ENV(ctx_workers, "USHMEM_CTX_WORKERS", boolean, "1", "", "",
           "Contexts created with SHMEM_CTX_PRIVATE or SHMEM_CTX_SERIALIZED get their own UCX worker and endpoints on first use of UCX, so that their quiet never waits for another context's operations. 0: every context shares the main worker.")
USHMEM_ENV(max_teams, "USHMEM_MAX_TEAMS", integer, "64", "2", "1048576",
           "Teams that may exist at once on a PE, SHMEM_TEAM_WORLD and SHMEM_TEAM_SHARED included (2 to 1048576). Each team takes about 7 KiB + USHMEM_TEAM_SCRATCH of symmetric memory (4.4 KiB more under SHMEM_DEBUG), reserved at init on top of SHMEM_SYMMETRIC_SIZE.")
USHMEM_ENV(team_scratch, "USHMEM_TEAM_SCRATCH", size, "32K", "4K", "4T",
           "Symmetric scratch per team (4K to 4T), for the collectives' small-message exchanges (half), the chunks of reductions (a quarter) and those of scans (a quarter).")
USHMEM_ENV(world_scratch, "USHMEM_WORLD_SCRATCH", size, "1M", "0", "",
           "Symmetric scratch of SHMEM_TEAM_WORLD (0 or more; one, not one per team: the machine bounds it, checked at init) instead of USHMEM_TEAM_SCRATCH (when larger), reserved at init on top of SHMEM_SYMMETRIC_SIZE: the chunks of its reductions and scans, whose every chunk costs an exchange (a round trip over the network).")
USHMEM_ENV(as_world_team, "USHMEM_ACTIVE_SET_WORLD_TEAM", boolean, "1", "", "",
           "Active-set collectives over every PE (PE_start 0, logPE_stride 0, PE_size the number of PEs: shmem_barrier, shmem_broadcast32, shmem_*_to_all, ...) run as SHMEM_TEAM_WORLD's collectives, with its scratch and algorithms, leaving pSync and pWrk untouched (0: through pSync and pWrk, as every other active set: a reduction then goes in chunks of the minimal pWrk, an exchange each).")
USHMEM_ENV(coll_flat_max, "USHMEM_COLL_FLAT_MAX", integer, "16", "1", "",
           "Largest team (at least 1) for which collectives use flat (every PE to every PE) patterns; larger teams use trees, rings and recursive doubling.")
USHMEM_ENV(barrier_algo, "USHMEM_BARRIER_ALGO", string, "auto", "", "",
           "auto|flat|central|dissemination. Barriers and team syncs (also inside other collectives): every PE signals every other one; gather to rank 0 and release (auto on a node with more PEs than CPUs); or dissemination (auto above USHMEM_COLL_FLAT_MAX PEs).")
USHMEM_ENV(bcast_algo, "USHMEM_BCAST_ALGO", string, "auto", "", "",
           "auto|eager|flat|binomial|tree|pull|chain|central. Broadcast: (teams, up to 128 B, and off the direct path up to half the team's scratch and 64 KiB) the root puts into the members' mailboxes, no sync; the root puts to every PE; a binomial tree of puts rooted at the root, then a sync; a binomial tree rooted at rank 0 that the root first sends to (what teams above 64 PEs use); (same-node teams) every PE copies from the root; (teams of 3 PEs or more) a pipelined chain from the root (auto from USHMEM_BCAST_CHAIN_MIN off the direct path); or (groups of up to USHMEM_COLL_FLAT_MAX PEs) every PE tells the root it entered, then the binomial tree, no sync (auto from USHMEM_BCAST_TREE_MIN off the direct path).")
USHMEM_ENV(bcast_tree_min, "USHMEM_BCAST_TREE_MIN", size, "16K", "0", "",
           "auto broadcast (0 or more): messages from this size use the binomial tree (or pull on one node) rather than flat puts from the root.")
USHMEM_ENV(bcast_chain_min, "USHMEM_BCAST_CHAIN_MIN", size, "0", "0", "",
           "0 or more; 0: off. Otherwise auto broadcasts of at least this size on teams of 3 PEs or more that are not all reached by load/store use a pipelined chain (64 KiB or larger segments) instead of a binomial tree: the root sends the message once, not log2(n) times. For networks whose links, not CPUs, bound throughput (on one 2-core machine over tcp it was no faster).")
USHMEM_ENV(reduce_algo, "USHMEM_REDUCE_ALGO", string, "auto", "", "",
           "auto|gather|scatter|rd|central|rsag. Reductions: every PE gathers all contributions through team scratch and reduces locally; reduce-scatter by direct reads then write-back (same-node teams); chunked recursive doubling; rank 0 gathers, reduces and sends the result back (auto for small ones over the network on a node with more PEs than CPUs); or reduce-scatter through team scratch and allgather by puts into the members' dest (teams; auto from 64 KiB off the direct path).")
USHMEM_ENV(reduce_gather_max, "USHMEM_REDUCE_GATHER_MAX", size, "2K", "0", "",
           "auto reductions and scans (0 or more): contributions up to this size use the gather algorithm (if the team scratch holds them).")
USHMEM_ENV(collect_algo, "USHMEM_COLLECT_ALGO", string, "auto", "", "",
           "auto|flat|ring|central|node. collect/fcollect: every PE puts its block to every PE; a ring; (fcollect, and alltoall(s) too) rank 0 gathers the blocks and sends each PE its result (auto for small ones over the network on a node with more PEs than CPUs); or (collect, fcollect, alltoall(s); teams across nodes) through one leader per node (auto otherwise for teams across nodes).")
USHMEM_ENV(scan_algo, "USHMEM_SCAN_ALGO", string, "auto", "", "",
           "auto|gather|read|hs. Scans: gather through team scratch, direct reads (same-node teams), or chunked Hillis-Steele.")
USHMEM_ENV(test_fault, "USHMEM_TEST_FAULT", string, "none", "", "",
           "none|lose_wakeups|short_get_replies|reject_bulk|refuse_growth. For ushmem's own tests only: a fault injected so that a test can check that the library notices it. lose_wakeups: this PE wakes no sleeping PE (a sleeper then sleeps to its bound, and with SHMEM_DEBUG=1 says 'missed wake-up'); short_get_replies: this PE's replies to batched get_nbi's (USHMEM_PUT_PACK) are one byte short (the initiator says so, writes nothing, and its quiet ends with USHMEM_WAIT_TIMEOUT naming this PE); reject_bulk: this PE refuses every bulk message (USHMEM_BULK_MIN) as if it lay outside its heap (it says so, writes nothing, and the sender's transfer fails, naming this PE); refuse_growth: the last PE fails to map the first chunk of a growing heap (USHMEM_HEAP_GROW), as if out of memory (every PE's allocation then fails alike, naming that PE).")

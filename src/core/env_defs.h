// Every environment variable ushmem reads, defined once:
//   USHMEM_ENV(field, "NAME", kind, "default", "description")
// kind: size (bytes; K/M/G/T suffixes, binary), boolean (0/1/yes/no/on/off/true/false),
//       integer, seconds (decimal, 0 = off), choice (a word from the list in the description).
// The settings struct, the parser, SHMEM_INFO's listing and the docs table all come from here.
USHMEM_ENV(symmetric_size, "SHMEM_SYMMETRIC_SIZE", size, "256M",
           "Bytes of symmetric heap per PE (K/M/G/T suffixes). Backed by 2 MiB huge pages when the pool has them.")
USHMEM_ENV(debug, "SHMEM_DEBUG", boolean, "0",
           "Enable costly argument checks (e.g. overlapping buffers) and debug messages.")
USHMEM_ENV(info, "SHMEM_INFO", boolean, "0",
           "Print every setting with its value, the heap backing and the transports at init (PE 0).")
USHMEM_ENV(version, "SHMEM_VERSION", boolean, "0", "Print the library version at init (PE 0).")
USHMEM_ENV(direct, "USHMEM_DIRECT", boolean, "1",
           "Reach same-node PEs by direct load/store through a mapping of their heap. 0 sends everything through UCX.")
USHMEM_ENV(progress_thread, "USHMEM_PROGRESS_THREAD", choice, "auto",
           "auto|on|off. A thread that progresses UCX so that software-emulated RMA (e.g. UCX_TLS=tcp) completes while the target computes. auto: only when a transport needs it.")
USHMEM_ENV(heap_address, "USHMEM_HEAP_ADDRESS", string, "auto",
           "Virtual address of the symmetric heap on every PE (hex), 'auto' for the built-in one, or 'any' to let each PE choose (addresses then translated per PE).")
USHMEM_ENV(static_data, "USHMEM_STATIC_DATA", boolean, "1",
           "Make the program's global and static data symmetric by moving it onto UCX-allocated shared memory at init. 0 registers it in place (slower same-node access).")
USHMEM_ENV(hugepage_notice, "USHMEM_HUGEPAGE_NOTICE", boolean, "1",
           "Print a one-line notice when the heap could not get huge pages.")
USHMEM_ENV(quiet_ep_max, "USHMEM_QUIET_EP_MAX", integer, "16",
           "Quiet flushes each PE with outstanding operations up to this many PEs, and the whole UCX worker above it.")
USHMEM_ENV(wait_timeout, "USHMEM_WAIT_TIMEOUT", seconds, "0",
           "Seconds after which a blocking wait or barrier that has not completed ends the job with a message naming what it waited for. 0: wait forever.")

// ushmem util: parsers of text that comes from outside the library (the environment, the kernel's
// /proc files, UCX's printed reports). Pure functions of their input, with no dependency on the
// other layers, so that every layer may use them and fuzz/fuzz_text.cpp can feed them anything.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ushmem::util {

// USHMEM_HEAP_ADDRESS: "auto" gives `automatic`, "any" gives 0 (let UCX choose), otherwise a hex
// address (optional 0x) that is a non-zero multiple of `align`. False when malformed.
bool parse_heap_address(std::string_view text, std::uintptr_t automatic, std::uintptr_t align,
                        std::uintptr_t &out);

// /proc/self/maps: the SysV shared-memory ids of the mapped segments, in order of first
// appearance, without repeats. Such a segment shows as "/SYSV<key> (deleted)" with its shmid as
// the inode.
std::vector<int> sysv_ids_in_maps(std::string_view maps);

// /proc/self/smaps: KernelPageSize of the mapping that starts at `addr`, in bytes; 0 if that
// mapping or its field is absent.
std::size_t page_size_in_smaps(std::string_view smaps, std::uintptr_t addr);

// ucp_context_print_info: the names of the transport resources ("... flags -- sysv/memory.0"),
// and whether one of them gives one-sided RMA on the node (sysv, posix) or across nodes (rc, dc,
// gga). Without either, UCX emulates RMA over active messages.
struct ucx_resources {
    std::string names;  // space-separated
    bool shared_memory_rma = false;
    bool network_rdma = false;
};
ucx_resources parse_ucx_resources(std::string_view text);

// ucp_ep_print_info: the resources of an endpoint's lanes by operation class, comma-separated;
// "emulated over AM" when UCX has no lane of that class but has an active-message one.
struct ep_lanes {
    std::string rma, amo, am;
};
ep_lanes parse_ep_lanes(std::string_view text);

// /proc/meminfo: the value of `field` ("MemAvailable", "HugePages_Free", ...) in bytes when the
// line carries a "kB" unit, as it stands otherwise (page counts). False when the field is absent
// or its value malformed or too large for 64 bits.
bool meminfo_value(std::string_view meminfo, std::string_view field, std::uint64_t &out);

// A file of /proc/sys holding one unsigned decimal (kernel.shmmax, vm.overcommit_memory, ...),
// blanks and a final newline allowed around it. False when malformed or above 64 bits.
bool parse_proc_number(std::string_view text, std::uint64_t &out);

} // namespace ushmem::util

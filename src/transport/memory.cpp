// transport/memory.cpp: ucp_mem_map (allocated or registered), unmap, rkey packing.
#include "transport/memory.hpp"

#include "transport/context.hpp"

#include <ucs/debug/log_def.h>

namespace ushmem::transport {

static bool do_map(void *addr, std::size_t len, unsigned flags, memory &m, std::string &err) {
    ucp_mem_map_params_t mp{};
    mp.field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH |
                    UCP_MEM_MAP_PARAM_FIELD_FLAGS;
    mp.address = addr;
    mp.length = len;
    mp.flags = flags;
    ucs_status_t st = ucp_mem_map(context(), &mp, &m.memh);
    if (st != UCS_OK) {
        err = std::string("ucp_mem_map: ") + ucs_status_string(st);
        m.memh = nullptr;
        return false;
    }
    ucp_mem_attr_t attr{};
    attr.field_mask = UCP_MEM_ATTR_FIELD_ADDRESS | UCP_MEM_ATTR_FIELD_LENGTH;
    ucp_mem_query(m.memh, &attr);
    m.address = attr.address;
    m.length = attr.length;
    m.allocated = (flags & UCP_MEM_MAP_ALLOCATE) != 0;
    return true;
}

bool map_allocate(void *addr, std::size_t len, bool fixed, memory &m, std::string &err) {
    return do_map(addr, len, UCP_MEM_MAP_ALLOCATE | (fixed ? UCP_MEM_MAP_FIXED : 0), m, err);
}

namespace {
ucs_log_func_rc_t swallow_log(const char *, unsigned, const char *, ucs_log_level_t,
                              const ucs_log_component_config_t *, const char *, va_list) {
    return UCS_LOG_FUNC_RC_STOP;
}
} // namespace

bool map_allocate_quiet(void *addr, std::size_t len, bool fixed, memory &m, std::string &err) {
    ucs_log_push_handler(swallow_log);
    bool ok = map_allocate(addr, len, fixed, m, err);
    ucs_log_pop_handler();
    return ok;
}

bool map_register(void *addr, std::size_t len, memory &m, std::string &err) {
    return do_map(addr, len, 0, m, err);
}

void unmap(memory &m) {
    if (m.memh && context()) ucp_mem_unmap(context(), m.memh);
    m = memory{};
}

std::vector<std::uint8_t> pack_rkey(const memory &m) {
    void *buf = nullptr;
    size_t len = 0;
    std::vector<std::uint8_t> out;
    if (ucp_rkey_pack(context(), m.memh, &buf, &len) == UCS_OK) {
        out.assign(static_cast<std::uint8_t *>(buf), static_cast<std::uint8_t *>(buf) + len);
        ucp_rkey_buffer_release(buf);
    }
    return out;
}

} // namespace ushmem::transport

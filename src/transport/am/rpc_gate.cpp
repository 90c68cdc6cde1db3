// transport/am/rpc_gate.cpp: the gate in front of the core's queued remote procedure calls
// (rpc_point, run_rpcs_slow; rpc.hpp): where they may run. Sends nothing, so that progress calls
// (which run it) stand below the senders, which answer the progress thread's ask by progressing.
#include "transport/am/rpc.hpp"

namespace ushmem::transport {

namespace {
void (*g_runner)() = nullptr;
bool g_on_server = false;
thread_local bool t_server = false;   // the progress thread
thread_local bool t_running = false;  // inside the runner: the program's function calls the library
} // namespace

void set_rpc_runner(void (*run)(), bool on_server) {
    g_runner = run;
    g_on_server = on_server;
}

void rpc_mark_server_thread() { t_server = true; }

void run_rpcs_slow() {
    if (!g_runner || t_running) return;  // (a function's own library calls do not nest calls)
    if (t_server ? !g_on_server : detail::rpc_points == 0) return;
    t_running = true;
    g_runner();
    t_running = false;
}

} // namespace ushmem::transport

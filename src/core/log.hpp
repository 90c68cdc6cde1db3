// Error reporting. Every message names the routine (given by the caller: core does not know the
// C API's names), the PE, what is wrong and the remedy.
#pragma once

namespace ushmem::core {

// "ushmem: <routine> (PE <me> of <n>): <message>", then the whole job ends.
[[noreturn]] void fatal(const char *routine, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
// Same prefix, no abort. The message is also kept as this thread's last error (last_error).
void error(const char *routine, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
// error() when `print`, else the message is only kept as this thread's last error: for a failure
// that every PE of a collective returns but one of them prints.
void error_if(bool print, const char *routine, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
// "<routine> (PE <me> of <n>): <message>" of the last error() or error_if() on this thread,
// "" if none (shmemx_last_error: what the C++ API puts into its exceptions).
const char *last_error();
// "ushmem: notice: <message>"
void notice(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

} // namespace ushmem::core

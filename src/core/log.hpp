// Error reporting. Every message names the routine (given by the caller: core does not know the
// C API's names), the PE, what is wrong and the remedy.
#pragma once

namespace ushmem::core {

// "ushmem: <routine> (PE <me> of <n>): <message>", then the whole job ends.
[[noreturn]] void fatal(const char *routine, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
// Same prefix, no abort.
void error(const char *routine, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
// "ushmem: notice: <message>"
void notice(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

} // namespace ushmem::core

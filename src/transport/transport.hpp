// transport/transport.hpp: the whole transport for the core, in one include. Everything that
// calls UCX lives under src/transport/ (README.md there is the map); the core drives it through
// these headers and never includes <ucp/api/ucp.h> for anything but the handle types.
#pragma once

#include "transport/am/acks.hpp"
#include "transport/am/receive.hpp"
#include "transport/am/rpc.hpp"
#include "transport/am/send.hpp"
#include "transport/am/wire.hpp"
#include "transport/context.hpp"
#include "transport/endpoint.hpp"
#include "transport/memory.hpp"
#include "transport/progress.hpp"
#include "transport/progress_thread.hpp"
#include "transport/shared_state.hpp"
#include "transport/sleep.hpp"
#include "transport/worker.hpp"

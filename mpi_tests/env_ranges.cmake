# Settings out of their documented range (issue #48, item 6; the ranges are env_defs.h's min and max
# columns): each ends shmem_init, on every PE that reads it, with one message naming the variable,
# the value given and the range, where the code used to clamp it and SHMEM_INFO showed the raw value.
# Included from CMakeLists.txt (the setup and put_pack programs are its).

# NAME|VAR=value|range text as the message gives it
set(_env_range_cases
  "put_pack_pes_negative|USHMEM_PUT_PACK_PES=-1|1 to 64"
  "put_pack_pes_zero|USHMEM_PUT_PACK_PES=0|1 to 64"
  "put_pack_pes_large|USHMEM_PUT_PACK_PES=1000|1 to 64"
  "put_pack_large|USHMEM_PUT_PACK=1M|0 to 64K"
  "quiet_ep_max_negative|USHMEM_QUIET_EP_MAX=-1|at least 1"
  "coll_flat_max_negative|USHMEM_COLL_FLAT_MAX=-1|at least 1"
  "coll_flat_max_oversub_zero|USHMEM_COLL_FLAT_MAX_OVERSUBSCRIBED=0|at least 1"
  "max_teams_one|USHMEM_MAX_TEAMS=1|2 to 1048576"
  "team_scratch_huge|USHMEM_TEAM_SCRATCH=16000000T|4K to 4T"
  "wait_timeout_huge|USHMEM_WAIT_TIMEOUT=2e9|0 to 1e9"
  "wait_remote_yield_huge|USHMEM_WAIT_REMOTE_YIELD=2|0 to 1")
foreach(_case IN LISTS _env_range_cases)
  string(REPLACE "|" ";" _parts "${_case}")
  list(GET _parts 0 _name)
  list(GET _parts 1 _setting)
  list(GET _parts 2 _range)
  string(REPLACE "=" ";" _kv "${_setting}")
  list(GET _kv 0 _var)
  list(GET _kv 1 _value)
  ushmem_mpi_test(env_range_${_name} PROGRAM setup NP 2 CONFIGS default ENV ${_setting} LABELS errors
                  WRAPPER ${CMAKE_CURRENT_SOURCE_DIR}/expect_error.sh
                          "^ushmem: shmem_init \\(PE [01] of 2\\): out-of-range value ${_var}='${_value}': the valid range is ${_range}$" --)
endforeach()

# The bounds themselves work, and SHMEM_INFO shows the values in effect in the form they are set
# (65536 bytes as 64K), not the text given.
ushmem_mpi_test(env_range_bounds PROGRAM setup NP 2 CONFIGS default
                ENV USHMEM_PUT_PACK_PES=64 USHMEM_PUT_PACK=65536 USHMEM_QUIET_EP_MAX=1 USHMEM_COLL_FLAT_MAX=1 SHMEM_INFO=1
                WRAPPER ${CMAKE_CURRENT_SOURCE_DIR}/expect_error.sh --status 0
                        "^  USHMEM_PUT_PACK += 64K +Bytes of a context" --)
# Packing with the largest pack and slots for every PE delivers the same data.
ushmem_mpi_test(put_pack_max PROGRAM put_pack ARGS held NP 4 CONFIGS tcp
                ENV USHMEM_PUT_PACK_HOLD=0 USHMEM_PUT_PACK=64K USHMEM_PUT_PACK_PES=64 USHMEM_WAIT_TIMEOUT=20 TIMEOUT 120)

/* features: what <ushmem/c/features.h> claims is there (docs/python.md), checked against the
 * library. Each USHMEM_HAVE_<name> macro names a routine of its family that must be declared and
 * linked (its address taken here, so a claim without a routine fails the build or the link); the
 * release macros must agree with SHMEM_VENDOR_STRING and with each other; <ushmem/shmem4py.h>
 * must define every PySHMEM_HAVE_* configuration macro shmem4py reads. One PE, no communication. */
#include "common.h"

#include <shmemx.h>
#include <ushmem/shmem4py.h>

static int failures = 0;

/* HAVE(macro-is-defined, routine): the routine exists when the macro says so. */
#define HAVE(name, routine)                                                                 \
    do {                                                                                    \
        void (*volatile p_)(void) = (void (*)(void))(routine);                              \
        if (!p_) {                                                                          \
            fprintf(stderr, "FAIL: USHMEM_HAVE_%s is defined but %s is NULL\n", name, #routine); \
            ++failures;                                                                     \
        }                                                                                   \
    } while (0)
#define MISSING(name)                                                                        \
    do {                                                                                     \
        fprintf(stderr, "FAIL: <ushmem/c/features.h> does not define USHMEM_HAVE_%s\n", name); \
        ++failures;                                                                          \
    } while (0)

int main(void) {
    /* Release macros. */
    char want[64];
    snprintf(want, sizeof want, "ushmem %d.%d.%d", USHMEM_VERSION_MAJOR, USHMEM_VERSION_MINOR,
             USHMEM_VERSION_PATCH);
    CHECK_NOSHMEM(strcmp(want, SHMEM_VENDOR_STRING) == 0, "SHMEM_VENDOR_STRING '%s', release macros say '%s'",
                  SHMEM_VENDOR_STRING, want);
    CHECK_NOSHMEM(strcmp(want + 7, USHMEM_VERSION_STRING) == 0, "USHMEM_VERSION_STRING '%s' != '%s'",
                  USHMEM_VERSION_STRING, want + 7);
    CHECK_NOSHMEM(USHMEM_NUMVERSION == USHMEM_VERSION_MAJOR * 10000 + USHMEM_VERSION_MINOR * 100 +
                                           USHMEM_VERSION_PATCH,
                  "USHMEM_NUMVERSION %d", USHMEM_NUMVERSION);
    CHECK_NOSHMEM(SHMEM_MAJOR_VERSION == 1 && SHMEM_MINOR_VERSION == 6, "specification version %d.%d",
                  SHMEM_MAJOR_VERSION, SHMEM_MINOR_VERSION);

    /* One routine per family. */
#if defined(USHMEM_HAVE_shmem_ctx_t) && defined(USHMEM_HAVE_SHMEM_CTX_INVALID) && \
    defined(USHMEM_HAVE_shmem_sync_all) && defined(USHMEM_HAVE_shmem_calloc) &&    \
    defined(USHMEM_HAVE_shmem_test) && defined(USHMEM_HAVE_shmem_to_all)
    HAVE("shmem_ctx_t", shmem_ctx_create);
    CHECK_NOSHMEM(SHMEM_CTX_INVALID == (shmem_ctx_t)0, "SHMEM_CTX_INVALID is not a null handle");
    HAVE("shmem_sync_all", shmem_sync_all);
    HAVE("shmem_calloc", shmem_calloc);
    HAVE("shmem_test", shmem_longlong_test);
    HAVE("shmem_to_all", shmem_long_sum_to_all);
#else
    MISSING("1.0-1.4 families");
#endif
#ifdef USHMEM_HAVE_shmem_malloc_with_hints
    HAVE("shmem_malloc_with_hints", shmem_malloc_with_hints);
#else
    MISSING("shmem_malloc_with_hints");
#endif
#ifdef USHMEM_HAVE_shmem_team_t
    HAVE("shmem_team_t", shmem_team_split_strided);
    HAVE("shmem_team_t", shmem_team_split_2d);
#else
    MISSING("shmem_team_t");
#endif
#ifdef USHMEM_HAVE_shmem_amo_nbi
    HAVE("shmem_amo_nbi", shmem_ctx_ulonglong_atomic_fetch_xor_nbi);
    HAVE("shmem_amo_nbi", shmem_double_atomic_swap_nbi);
#else
    MISSING("shmem_amo_nbi");
#endif
#ifdef USHMEM_HAVE_shmem_put_signal
    HAVE("shmem_put_signal", shmem_putmem_signal_nbi);
    HAVE("shmem_put_signal", shmem_ctx_int64_put_signal);
#else
    MISSING("shmem_put_signal");
#endif
#ifdef USHMEM_HAVE_shmem_signal_fetch
    HAVE("shmem_signal_fetch", shmem_signal_fetch);
#else
    MISSING("shmem_signal_fetch");
#endif
#ifdef USHMEM_HAVE_shmem_signal_wait_until
    HAVE("shmem_signal_wait_until", shmem_signal_wait_until);
#else
    MISSING("shmem_signal_wait_until");
#endif
#if defined(USHMEM_HAVE_shmem_broadcast) && defined(USHMEM_HAVE_shmem_collect) && \
    defined(USHMEM_HAVE_shmem_fcollect) && defined(USHMEM_HAVE_shmem_alltoall) && \
    defined(USHMEM_HAVE_shmem_alltoalls)
    HAVE("shmem_broadcast", shmem_float_broadcast);
    HAVE("shmem_collect", shmem_int_collect);
    HAVE("shmem_fcollect", shmem_long_fcollect);
    HAVE("shmem_alltoall", shmem_double_alltoall);
    HAVE("shmem_alltoalls", shmem_uint64_alltoalls);
#else
    MISSING("shmem_broadcast/collect/fcollect/alltoall/alltoalls");
#endif
#if defined(USHMEM_HAVE_shmem_broadcastmem) && defined(USHMEM_HAVE_shmem_collectmem) && \
    defined(USHMEM_HAVE_shmem_fcollectmem) && defined(USHMEM_HAVE_shmem_alltoallmem) && \
    defined(USHMEM_HAVE_shmem_alltoallsmem)
    HAVE("shmem_broadcastmem", shmem_broadcastmem);
    HAVE("shmem_collectmem", shmem_collectmem);
    HAVE("shmem_fcollectmem", shmem_fcollectmem);
    HAVE("shmem_alltoallmem", shmem_alltoallmem);
    HAVE("shmem_alltoallsmem", shmem_alltoallsmem);
#else
    MISSING("shmem_*mem collectives");
#endif
#ifdef USHMEM_HAVE_shmem_reduce
    HAVE("shmem_reduce", shmem_longdouble_prod_reduce);
    HAVE("shmem_reduce", shmem_uchar_xor_reduce);
#else
    MISSING("shmem_reduce");
#endif
#ifdef USHMEM_HAVE_shmem_wait_test_many
    HAVE("shmem_wait_test_many", shmem_int_wait_until_some_vector);
    HAVE("shmem_wait_test_many", shmem_size_test_any);
#else
    MISSING("shmem_wait_test_many");
#endif
#ifdef USHMEM_HAVE_shmem_pcontrol
    HAVE("shmem_pcontrol", shmem_pcontrol);
#else
    MISSING("shmem_pcontrol");
#endif
#ifdef USHMEM_HAVE_shmem_team_ptr
    HAVE("shmem_team_ptr", shmem_team_ptr);
#endif
#ifdef USHMEM_HAVE_shmem_ctx_get_team
    HAVE("shmem_ctx_get_team", shmem_ctx_get_team);
#endif
#ifdef USHMEM_HAVE_shmem_ibget
    HAVE("shmem_ibget", shmem_ctx_ibget128);
#endif
#ifdef USHMEM_HAVE_shmem_ibput
    HAVE("shmem_ibput", shmem_short_ibput);
#endif
#ifdef USHMEM_HAVE_shmem_scan
    HAVE("shmem_scan", shmem_float_sum_inscan);
    HAVE("shmem_scan", shmem_ulong_sum_exscan);
#endif
#ifdef USHMEM_HAVE_shmem_signal_add
    HAVE("shmem_signal_add", shmem_ctx_signal_set);
#endif
#ifdef USHMEM_HAVE_shmem_ctx_session
    HAVE("shmem_ctx_session", shmem_ctx_session_start);
    HAVE("shmem_ctx_session", shmem_ctx_session_stop);
#endif
#ifdef USHMEM_HAVE_shmem_pe_quiet
    HAVE("shmem_pe_quiet", shmem_ctx_pe_quiet);
#endif
#ifdef USHMEM_HAVE_shmemx_init_comm
    HAVE("shmemx_init_comm", shmemx_init_comm);
#endif
#ifdef USHMEM_HAVE_shmemx_sos_names
    HAVE("shmemx_sos_names", shmemx_ctx_int_ibget);
    HAVE("shmemx_sos_names", shmemx_ibput16);
    HAVE("shmemx_sos_names", shmemx_complexd_sum_exscan);
    HAVE("shmemx_sos_names", shmemx_signal_add);
    HAVE("shmemx_sos_names", shmemx_wtime);
#endif
#ifdef USHMEM_HAVE_shmemx_pcntr
    HAVE("shmemx_pcntr", shmemx_pcntr_get_all);
    HAVE("shmemx_pcntr", shmemx_pcntr_get_completed_target);
#endif

    /* What shmem4py reads (its fallback.h): all twenty, from <ushmem/shmem4py.h>. */
    int py = 0;
#if defined(PySHMEM_HAVE_shmem_malloc_with_hints) && defined(PySHMEM_HAVE_shmem_team_t) &&       \
    defined(PySHMEM_HAVE_SHMEM_CTX_INVALID) && defined(PySHMEM_HAVE_shmem_amo_nbi) &&            \
    defined(PySHMEM_HAVE_shmem_put_signal) && defined(PySHMEM_HAVE_shmem_signal_fetch) &&        \
    defined(PySHMEM_HAVE_shmem_signal_wait_until) && defined(PySHMEM_HAVE_shmem_broadcast) &&    \
    defined(PySHMEM_HAVE_shmem_collect) && defined(PySHMEM_HAVE_shmem_fcollect) &&               \
    defined(PySHMEM_HAVE_shmem_alltoall) && defined(PySHMEM_HAVE_shmem_alltoalls) &&             \
    defined(PySHMEM_HAVE_shmem_broadcastmem) && defined(PySHMEM_HAVE_shmem_collectmem) &&        \
    defined(PySHMEM_HAVE_shmem_fcollectmem) && defined(PySHMEM_HAVE_shmem_alltoallmem) &&        \
    defined(PySHMEM_HAVE_shmem_alltoallsmem) && defined(PySHMEM_HAVE_shmem_reduce) &&            \
    defined(PySHMEM_HAVE_shmem_wait_test_many) && defined(PySHMEM_HAVE_shmem_pcontrol)
    py = 20;
#endif
    if (py != 20) {
        fprintf(stderr, "FAIL: <ushmem/shmem4py.h> does not define every PySHMEM_HAVE_* macro\n");
        ++failures;
    }

    if (failures) return 1;
    printf("features: every claimed family is there; release %s\n", USHMEM_VERSION_STRING);
    return 0;
}

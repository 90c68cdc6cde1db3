/* coll_api: the team, context and collective routines are declared by <shmem.h> with the types of
 * the OpenSHMEM 1.6 synopses (every typed routine, from the specification's type tables), the C11
 * generic names select the routine of the right type, and the constants have usable values. Runs on
 * one PE; a mismatch is reported with the specified synopsis. */
#include "common.h"

static int mismatches = 0;

#define SIG(fn, type, synopsis)                                                                   \
    do {                                                                                          \
        if (!_Generic(&fn, type: 1, default: 0)) {                                                \
            fprintf(stderr, "MISMATCH: <shmem.h> declares %s differently from the specification: %s\n", \
                    #fn, synopsis);                                                               \
            ++mismatches;                                                                         \
        }                                                                                         \
    } while (0)

#define SIG_DATA(T, N, _)                                                                         \
    SIG(shmem_##N##_broadcast, int (*)(shmem_team_t, T *, const T *, size_t, int), "broadcast"); \
    SIG(shmem_##N##_collect, int (*)(shmem_team_t, T *, const T *, size_t), "collect");          \
    SIG(shmem_##N##_fcollect, int (*)(shmem_team_t, T *, const T *, size_t), "fcollect");        \
    SIG(shmem_##N##_alltoall, int (*)(shmem_team_t, T *, const T *, size_t), "alltoall");        \
    SIG(shmem_##N##_alltoalls, int (*)(shmem_team_t, T *, const T *, ptrdiff_t, ptrdiff_t, size_t), "alltoalls");
#define SIG_RED(T, N, SUFFIX) \
    SIG(shmem_##N##SUFFIX, int (*)(shmem_team_t, T *, const T *, size_t), "int shmem_TYPENAME" #SUFFIX "(shmem_team_t team, TYPE *dest, const TYPE *source, size_t nreduce)");
#define SIG_TOALL(T, N, SUFFIX)                                                                   \
    SIG(shmem_##N##SUFFIX, void (*)(T *, const T *, int, int, int, int, T *, long *),             \
        "void shmem_TYPENAME" #SUFFIX "(TYPE *dest, const TYPE *source, int nreduce, int PE_start, int logPE_stride, int PE_size, TYPE *pWrk, long *pSync)");

int main(void) {
    SIG(shmem_team_my_pe, int (*)(shmem_team_t), "int shmem_team_my_pe(shmem_team_t team)");
    SIG(shmem_team_n_pes, int (*)(shmem_team_t), "int shmem_team_n_pes(shmem_team_t team)");
    SIG(shmem_team_get_config, int (*)(shmem_team_t, long, shmem_team_config_t *), "shmem_team_get_config");
    SIG(shmem_team_translate_pe, int (*)(shmem_team_t, int, shmem_team_t), "shmem_team_translate_pe");
    SIG(shmem_team_split_strided,
        int (*)(shmem_team_t, int, int, int, const shmem_team_config_t *, long, shmem_team_t *),
        "shmem_team_split_strided");
    SIG(shmem_team_split_2d,
        int (*)(shmem_team_t, int, const shmem_team_config_t *, long, shmem_team_t *,
                const shmem_team_config_t *, long, shmem_team_t *),
        "shmem_team_split_2d");
    SIG(shmem_team_destroy, void (*)(shmem_team_t), "void shmem_team_destroy(shmem_team_t team)");
    SIG(shmem_team_ptr, void *(*)(shmem_team_t, const void *, int), "void *shmem_team_ptr(shmem_team_t team, const void *dest, int pe)");
    SIG(shmem_ctx_create, int (*)(long, shmem_ctx_t *), "int shmem_ctx_create(long options, shmem_ctx_t *ctx)");
    SIG(shmem_team_create_ctx, int (*)(shmem_team_t, long, shmem_ctx_t *), "shmem_team_create_ctx");
    SIG(shmem_ctx_destroy, void (*)(shmem_ctx_t), "void shmem_ctx_destroy(shmem_ctx_t ctx)");
    SIG(shmem_ctx_get_team, int (*)(shmem_ctx_t, shmem_team_t *), "shmem_ctx_get_team");
    SIG(shmem_ctx_session_start, void (*)(shmem_ctx_t, long, const shmem_ctx_session_config_t *, long),
        "shmem_ctx_session_start");
    SIG(shmem_ctx_session_stop, void (*)(shmem_ctx_t), "shmem_ctx_session_stop");
    SIG(shmem_team_sync, int (*)(shmem_team_t), "int shmem_team_sync(shmem_team_t team)");
    SIG(shmem_sync, void (*)(int, int, int, long *), "void shmem_sync(int PE_start, int logPE_stride, int PE_size, long *pSync)");
    SIG(shmem_barrier, void (*)(int, int, int, long *), "void shmem_barrier(...)");
    SIG(shmem_sync_all, void (*)(void), "void shmem_sync_all(void)");
    USHMEM_RMA_TYPES(SIG_DATA, _)
    SIG(shmem_broadcastmem, int (*)(shmem_team_t, void *, const void *, size_t, int), "broadcastmem");
    SIG(shmem_collectmem, int (*)(shmem_team_t, void *, const void *, size_t), "collectmem");
    SIG(shmem_fcollectmem, int (*)(shmem_team_t, void *, const void *, size_t), "fcollectmem");
    SIG(shmem_alltoallmem, int (*)(shmem_team_t, void *, const void *, size_t), "alltoallmem");
    SIG(shmem_alltoallsmem, int (*)(shmem_team_t, void *, const void *, ptrdiff_t, ptrdiff_t, size_t), "alltoallsmem");
    SIG(shmem_broadcast32, void (*)(void *, const void *, size_t, int, int, int, int, long *), "broadcast32");
    SIG(shmem_broadcast64, void (*)(void *, const void *, size_t, int, int, int, int, long *), "broadcast64");
    SIG(shmem_collect32, void (*)(void *, const void *, size_t, int, int, int, long *), "collect32");
    SIG(shmem_fcollect64, void (*)(void *, const void *, size_t, int, int, int, long *), "fcollect64");
    SIG(shmem_alltoall32, void (*)(void *, const void *, size_t, int, int, int, long *), "alltoall32");
    SIG(shmem_alltoalls64, void (*)(void *, const void *, ptrdiff_t, ptrdiff_t, size_t, int, int, int, long *),
        "alltoalls64");
    USHMEM_REDUCE_BITWISE_TYPES(SIG_RED, _and_reduce)
    USHMEM_REDUCE_BITWISE_TYPES(SIG_RED, _or_reduce)
    USHMEM_REDUCE_BITWISE_TYPES(SIG_RED, _xor_reduce)
    USHMEM_REDUCE_MINMAX_TYPES(SIG_RED, _max_reduce)
    USHMEM_REDUCE_MINMAX_TYPES(SIG_RED, _min_reduce)
    USHMEM_REDUCE_ARITH_TYPES(SIG_RED, _sum_reduce)
    USHMEM_REDUCE_ARITH_TYPES(SIG_RED, _prod_reduce)
    USHMEM_REDUCE_ARITH_TYPES(SIG_RED, _sum_inscan)
    USHMEM_REDUCE_ARITH_TYPES(SIG_RED, _sum_exscan)
    USHMEM_TO_ALL_BITWISE_TYPES(SIG_TOALL, _and_to_all)
    USHMEM_TO_ALL_BITWISE_TYPES(SIG_TOALL, _or_to_all)
    USHMEM_TO_ALL_BITWISE_TYPES(SIG_TOALL, _xor_to_all)
    USHMEM_TO_ALL_MINMAX_TYPES(SIG_TOALL, _max_to_all)
    USHMEM_TO_ALL_MINMAX_TYPES(SIG_TOALL, _min_to_all)
    USHMEM_TO_ALL_ARITH_TYPES(SIG_TOALL, _sum_to_all)
    USHMEM_TO_ALL_ARITH_TYPES(SIG_TOALL, _prod_to_all)

    /* Constants. */
    CHECK(SHMEM_SYNC_SIZE >= 1 && SHMEM_REDUCE_SYNC_SIZE >= 1 && SHMEM_BCAST_SYNC_SIZE >= 1 &&
              SHMEM_BARRIER_SYNC_SIZE >= 1 && SHMEM_COLLECT_SYNC_SIZE >= 1 && SHMEM_ALLTOALL_SYNC_SIZE >= 1 &&
              SHMEM_ALLTOALLS_SYNC_SIZE >= 1 && SHMEM_REDUCE_MIN_WRKDATA_SIZE >= 1,
          "pSync/pWrk sizes");
    CHECK(SHMEM_TEAM_INVALID == (shmem_team_t)0 && SHMEM_CTX_INVALID == (shmem_ctx_t)0, "invalid handles");
    CHECK(SHMEM_TEAM_WORLD != SHMEM_TEAM_SHARED && SHMEM_TEAM_WORLD != SHMEM_TEAM_INVALID, "predefined teams");
    CHECK((SHMEM_CTX_PRIVATE & SHMEM_CTX_SERIALIZED) == 0 && (SHMEM_CTX_NOSTORE & SHMEM_CTX_PRIVATE) == 0,
          "context options are distinct bits");

    /* The C11 generic selections compile for their types (not called: one PE, no init needed for
     * a compile check) and choose the right routine. */
    shmem_init();
    static int di[4], si[4];
    static double dd[4], sd[4];
    static double _Complex dc[4], sc[4];
    static unsigned long ul[4], su[4];
    static long double ld[4], sld[4];
    if (shmem_n_pes() == 1) {
        CHECK_EQ_INT(0, shmem_broadcast(SHMEM_TEAM_WORLD, di, si, 4, 0), "generic broadcast");
        CHECK_EQ_INT(0, shmem_sum_reduce(SHMEM_TEAM_WORLD, dc, sc, 4), "generic sum_reduce complex");
        CHECK_EQ_INT(0, shmem_max_reduce(SHMEM_TEAM_WORLD, ld, sld, 4), "generic max_reduce long double");
        CHECK_EQ_INT(0, shmem_and_reduce(SHMEM_TEAM_WORLD, ul, su, 4), "generic and_reduce");
        CHECK_EQ_INT(0, shmem_sum_exscan(SHMEM_TEAM_WORLD, dd, sd, 4), "generic sum_exscan");
        CHECK_EQ_INT(0, shmem_sync(SHMEM_TEAM_WORLD), "generic shmem_sync(team)");
        static long ps[SHMEM_SYNC_SIZE];
        for (int i = 0; i < SHMEM_SYNC_SIZE; ++i) ps[i] = SHMEM_SYNC_VALUE;
        shmem_sync(0, 0, 1, ps); /* the deprecated form, by argument count */
    }
    if (mismatches) {
        fprintf(stderr, "coll_api: %d mismatches\n", mismatches);
        shmem_global_exit(1);
    }
    NOTE("coll_api: team, context and collective declarations OK");
    shmem_finalize();
    return 0;
}

/* Shared by the collective tests (coll_*.c): the team shapes every collective is run over. */
#ifndef USHMEM_MPI_TESTS_COLL_COMMON_H
#define USHMEM_MPI_TESTS_COLL_COMMON_H

#include "common.h"

#define MAX_SHAPES 16

struct shape {
    const char *name;
    shmem_team_t team; /* SHMEM_TEAM_INVALID on PEs outside it */
    int owned;         /* destroy at the end */
};

static struct shape shapes[MAX_SHAPES];
static int nshapes;

static void add_shape(const char *name, shmem_team_t t, int owned) {
    shapes[nshapes].name = name;
    shapes[nshapes].team = t;
    shapes[nshapes].owned = owned;
    ++nshapes;
}

/* World, SHMEM_TEAM_SHARED, the even PEs (strided), the world reversed (negative stride), a
 * nested split (every other rank of the reversed world), the x and y teams of a 2-D split, and
 * single-PE teams (the x teams of xrange 1). */
static void make_shapes(void) {
    int npes = shmem_n_pes();
    shmem_team_t t;
    add_shape("world", SHMEM_TEAM_WORLD, 0);
    add_shape("shared", SHMEM_TEAM_SHARED, 0);
    CHECK_EQ_INT(0, shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, NULL, 0, &t), "split even");
    add_shape("even", t, 1);
    shmem_team_t rev;
    CHECK_EQ_INT(0, shmem_team_split_strided(SHMEM_TEAM_WORLD, npes - 1, -1, npes, NULL, 0, &rev), "split rev");
    add_shape("reversed", rev, 1);
    CHECK_EQ_INT(0, shmem_team_split_strided(rev, 1 % npes, 2, npes > 1 ? npes / 2 : 1, NULL, 0, &t), "nested");
    add_shape("nested", t, 1);
    shmem_team_t x, y;
    CHECK_EQ_INT(0, shmem_team_split_2d(SHMEM_TEAM_WORLD, 2, NULL, 0, &x, NULL, 0, &y), "split 2d");
    add_shape("2d-x", x, 1);
    add_shape("2d-y", y, 1);
    CHECK_EQ_INT(0, shmem_team_split_2d(SHMEM_TEAM_WORLD, 1, NULL, 0, &x, NULL, 0, &y), "split 2d 1");
    add_shape("single", x, 1);
    shmem_team_destroy(y);
}

static void destroy_shapes(void) {
    for (int i = 0; i < nshapes; ++i)
        if (shapes[i].owned && shapes[i].team != SHMEM_TEAM_INVALID) shmem_team_destroy(shapes[i].team);
    nshapes = 0;
}

static inline int world_of(shmem_team_t t, int r) { return shmem_team_translate_pe(t, r, SHMEM_TEAM_WORLD); }

#endif

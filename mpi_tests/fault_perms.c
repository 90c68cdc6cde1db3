/* fault_perms: the shared memory a job creates is private to its user (docs/security.md).
 *
 * After shmem_init (and again after a shmem_malloc and a context's first UCX use), every
 * System V segment mapped in this process must have no group or other permission bits, and no
 * file in /dev/shm owned by this user may be readable or writable by group or others. */
#define _GNU_SOURCE
#include "common.h"

#include <dirent.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <unistd.h>

static int g_read_only; /* read-only SysV mappings seen by the last check: the node's tables */

static int check_segments(const char *when) {
    FILE *f = fopen("/proc/self/maps", "r");
    CHECK(f, "cannot open /proc/self/maps");
    char line[512];
    int n = 0;
    g_read_only = 0;
    while (fgets(line, sizeof line, f)) {
        if (!strstr(line, "/SYSV")) continue;
        unsigned long long inode = 0;
        char range[64], perms[8], offset[32], dev[16];
        if (sscanf(line, "%63s %7s %31s %15s %llu", range, perms, offset, dev, &inode) != 5) continue;
        struct shmid_ds ds;
        if (shmctl((int)inode, IPC_STAT, &ds) != 0) continue;
        ++n;
        if (strncmp(perms, "r--", 3) == 0) ++g_read_only;
        CHECK((ds.shm_perm.mode & 077) == 0, "%s: SysV segment %llu (%s) has mode %03o; expected 0600",
              when, inode, range, (unsigned)(ds.shm_perm.mode & 0777));
    }
    fclose(f);
    return n;
}

static void check_dev_shm(const char *when) {
    DIR *d = opendir("/dev/shm");
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d))) {
        char path[512];
        struct stat st;
        snprintf(path, sizeof path, "/dev/shm/%s", e->d_name);
        if (e->d_name[0] == '.' || stat(path, &st) != 0 || !S_ISREG(st.st_mode)) continue;
        if (st.st_uid != getuid()) continue;
        CHECK((st.st_mode & 077) == 0, "%s: %s has mode %03o; expected no group/other access", when,
              path, (unsigned)(st.st_mode & 0777));
    }
    closedir(d);
}

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    int segs = check_segments("after shmem_init");
    check_dev_shm("after shmem_init");
    long *buf = shmem_malloc(1 << 20);
    CHECK(buf, "shmem_malloc");
    shmem_long_p(buf, me, (me + 1) % n);
    shmem_barrier_all();
    segs = check_segments("after shmem_malloc and a put");
    check_dev_shm("after shmem_malloc and a put");
    /* The init table held once per node (issue #50: every PE's worker address and the heap's and
     * the static data's memory keys) is among them, mapped read-only, where the node has more than
     * one PE (docs/architecture.md, "Per PE, per node, per peer"). */
    const char *tables = getenv("USHMEM_NODE_TABLES");
    if (shmem_team_n_pes(SHMEM_TEAM_SHARED) > 1 && !(tables && strcmp(tables, "0") == 0))
        CHECK(g_read_only >= 1, "expected the node's init table among the SysV segments, read-only; found %d",
              g_read_only);
    printf("[PE %d] %d SysV segments mapped (%d read-only: the node's tables), all private to the user: OK\n", me,
           segs, g_read_only);
    shmem_free(buf);
    shmem_finalize();
    return 0;
}

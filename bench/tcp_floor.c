/* The kernel's floor under the network table's latency rows: one TCP round trip over loopback
 * between the two ranks, both busy-polling recv() on a TCP_NODELAY socket, no library in between.
 * A blocking get, a fetching atomic and a put + quiet over UCX_TLS=tcp each cost at least one such
 * round trip (a request and its reply or acknowledgement), whatever the library; the table shows
 * this column beside them so that a row at the floor reads as such.
 *
 * Same options, timing (rma_common.h) and RESULT lines as the other RMA benchmarks; every latency
 * test asked for (put_lat, get_lat, fadd_lat, add_lat, fxor_lat) reports the same measurement at
 * 8 B: a 32-byte request (about a UCX active message's header and 8 B) and a 32-byte reply. Other
 * tests and sizes are skipped (add_lat and fxor_lat only beside one of the others, as in the amo
 * series: rb_opts::amo_tests). MPI only passes the listening port; rank 0 times, rank 1 echoes.
 *
 *   mpirun -np 2 ./bench_tcp_floor -t get_lat,fadd_lat [rma_common options]
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <mpi.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include "mpi_pair.h"
#include "rma_common.h"

#define TF_MSG 32

static int tf_fd = -1;

static void tf_die(const char *what)
{
    perror(what);
    MPI_Abort(MPI_COMM_WORLD, 3);
}

static void tf_send(const char *b)
{
    for (size_t done = 0; done < TF_MSG;) {
        const ssize_t r = send(tf_fd, b + done, TF_MSG - done, 0);
        if (r < 0) tf_die("bench_tcp_floor: send");
        done += (size_t)r;
    }
}

/* Busy polling, as a library's progress loop does (without its epoll_wait per poll). */
static void tf_recv(char *b)
{
    for (size_t done = 0; done < TF_MSG;) {
        const ssize_t r = recv(tf_fd, b + done, TF_MSG - done, MSG_DONTWAIT);
        if (r > 0) done += (size_t)r;
        else if (r == 0 || (errno != EAGAIN && errno != EWOULDBLOCK)) tf_die("bench_tcp_floor: recv");
    }
}

static double run_batch(void *ctx, const struct rb_job *j, long n)
{
    (void)ctx;
    (void)j;
    char b[TF_MSG] = {'R'};
    const double t0 = rb_now_ns();
    for (long i = 0; i < n; ++i) {
        b[0] = 'R';
        tf_send(b);
        tf_recv(b);
        if (b[0] != 'A') {
            fprintf(stderr, "CHECK FAILED rank=0: reply %d, expected 'A'\n", b[0]);
            MPI_Abort(MPI_COMM_WORLD, 4);
        }
    }
    return rb_now_ns() - t0;
}

int main(int argc, char **argv)
{
    struct rb_opts o;
    memset(&o, 0, sizeof o);
    o.supported = (1u << RB_PUT_LAT) | (1u << RB_GET_LAT) | (1u << RB_FADD_LAT);
    int prc = rb_parse_opts(argc, argv, &o);
    int me;
    const int ended = rb_mpi_pair_start(&argc, &argv, prc, &me);
    if (ended >= 0) return ended;

    int ls = -1, port = 0;
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (me == 0) {
        ls = socket(AF_INET, SOCK_STREAM, 0);
        socklen_t len = sizeof a;
        if (ls < 0 || bind(ls, (struct sockaddr *)&a, sizeof a) || getsockname(ls, (struct sockaddr *)&a, &len) ||
            listen(ls, 1))
            tf_die("bench_tcp_floor: listen");
        port = ntohs(a.sin_port);
    }
    MPI_Bcast(&port, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (me == 1) {
        a.sin_port = htons((uint16_t)port);
        tf_fd = socket(AF_INET, SOCK_STREAM, 0);
        if (tf_fd < 0 || connect(tf_fd, (struct sockaddr *)&a, sizeof a)) tf_die("bench_tcp_floor: connect");
    } else {
        tf_fd = accept(ls, NULL, NULL);
        if (tf_fd < 0) tf_die("bench_tcp_floor: accept");
        close(ls);
    }
    const int one = 1;
    setsockopt(tf_fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);

    struct rb_job *jobs = calloc(RB_MAX_JOBS, sizeof *jobs);
    int njobs = 0;
    {
        struct rb_job *all = calloc(RB_MAX_JOBS, sizeof *all);
        const int nall = rb_build_jobs(&o, all);
        for (int i = 0; i < nall; ++i)
            if (all[i].size == 8 && all[i].src == RB_HEAP && all[i].dst == RB_HEAP) jobs[njobs++] = all[i];
        free(all);
    }
    if (me == 1) { /* echo until rank 0 says it is done */
        char b[TF_MSG];
        for (;;) {
            tf_recv(b);
            if (b[0] == 'Q') break;
            b[0] = 'A';
            tf_send(b);
        }
    } else {
        /* The same round trip under the names of bench_shmem_amo's other latency tests; not
         * under its issue rates, which a stream of operations may pipeline below a round trip. */
        unsigned as = 0;
        for (int k = 0; k < RB_NAMO; ++k)
            if ((o.amo_tests & (1u << k)) && !strstr(rb_amo_only_names[k], "_rate")) as |= 1u << k;
        printf("INFO impl=tcp_floor lib=\"loopback TCP\" npes=2 mode=%s jobs=%d\n", o.mode,
               njobs + __builtin_popcount(as));
        struct rb_result r;
        for (int i = 0; i < njobs; ++i) {
            rb_measure(&o, &jobs[i], run_batch, NULL, &r);
            rb_print_result(&o, &r);
        }
        const struct rb_job j = {.test = RB_FADD_LAT, .size = 8, .src = RB_HEAP, .dst = RB_HEAP};
        for (int k = 0; k < RB_NAMO; ++k) {
            if (!(as & (1u << k))) continue;
            rb_measure(&o, &j, run_batch, NULL, &r);
            rb_print_result_as(&o, &r, rb_amo_only_names[k]);
        }
        char b[TF_MSG] = {'Q'};
        tf_send(b);
    }
    close(tf_fd);
    free(jobs);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}

#!/usr/bin/env bash
# ci/cluster.sh: a cluster of simulated hosts on this one machine, so that one mpirun job spans
# several "hosts" (docs/testing.md, "The simulated cluster"). Root only; iproute2 and util-linux.
#
#   ci/cluster.sh run [--hosts N] [--slots S] [--cpus split|shared] [--timeout SEC] -- COMMAND...
#       bring a cluster up, run COMMAND on its head node (every mpirun inside COMMAND spans the
#       hosts: N hosts (2) of S slots (2), ranks round-robin over them), check that the job left
#       nothing in the hosts, take the cluster down (always: on failure, timeout, Ctrl-C or
#       SIGTERM too). --timeout: the whole run, setup and teardown included, within about SEC s.
#       Exit status: COMMAND's (124 when it timed out); 1 if the cluster could not be made or the
#       job left something behind; 77 when not root (nothing done).
#   ci/cluster.sh up [--hosts N] [--slots S] [--cpus split|shared] [--owner PID]
#       bring a cluster up and print its directory (the cluster lives until `down`, or until the
#       owner process, by default the caller, is gone and another `up`/`run`/`reap` reaps it)
#   ci/cluster.sh exec DIR -- COMMAND [ARGS...]    run COMMAND on the head node of cluster DIR
#   ci/cluster.sh kill-host DIR I                  SIGKILL every process of host I (0-based)
#   ci/cluster.sh clean-host DIR I                 remove what host I's killed processes left
#   ci/cluster.sh leftovers DIR                    what the jobs left in the hosts (empty: nothing)
#   ci/cluster.sh down DIR                         kill what runs in it and remove everything
#   ci/cluster.sh reap | list
#
# Layout of a cluster (all of it private to the run: no interface or address in the root network
# namespace; names carry the run's ID, so concurrent clusters never meet):
#   head   network namespace ushc-ID-head: a bridge br0 with 10.77.0.1/24. mpirun runs here (and
#          no PE: the hostfile names only the hosts), with the machine's UTS and IPC namespaces.
#   host I network namespace ushc-ID-hI joined to br0 by a veth pair (eth0 = 10.77.0.(10+I)/24
#          inside), its own UTS namespace (hostname cID-hI) and IPC namespace (its own System V
#          shared memory), and its own TMPDIR (Open MPI's session directory). Processes of a host
#          see each other's sysv segments, so UCX gives same-host PEs shared memory (ushmem's
#          direct load/store route); other hosts are reachable only over the veth links (UCX tcp).
#          With --cpus split (default) its own share of the CPUs: a cpuset cgroup
#          ushmem-cluster-ID-hI where cgroup v1 cpusets exist, else the affinity of its processes.
# The addresses exist only inside the cluster's namespaces, so concurrent clusters never collide.
# mpirun learns the cluster from OMPI_MCA_* variables exported to COMMAND: the hostfile, an rsh
# agent (DIR/agent) that enters a host's namespaces with nsenter, no tree spawn (every orted is
# started by mpirun), oob/btl tcp restricted to the cluster's subnet, ranks mapped round-robin over
# the hosts. Options given to mpirun itself take precedence over these.
set -uo pipefail

base=/run/ushmem-cluster
subnet=10.77.0
me=$(basename "$0")

die() { echo "$me: $*" >&2; exit 1; }
need_root() {
    if [ "$(id -u)" != 0 ]; then
        echo "$me: SKIPPED: simulated hosts need root (network, UTS and IPC namespaces: ip netns," \
             "unshare, nsenter); running as uid $(id -u)" >&2
        exit 77
    fi
    local t
    for t in ip unshare nsenter mount umount; do
        command -v "$t" >/dev/null || die "'$t' not found: install iproute2 and util-linux (ci/deps.sh)"
    done
}

# ---- cluster description (DIR/conf) ----
load() {
    local dir=$1
    [ -f "$dir/conf" ] || die "$dir is not a cluster directory (no $dir/conf)"
    CPUS=shared CGROUP_BASE=""
    # shellcheck disable=SC1091
    . "$dir/conf"  # ID HOSTS SLOTS CPUS CGROUP_BASE OWNER OWNER_START
    DIR=$dir
}
ns_head() { echo "ushc-$ID-head"; }
ns_host() { echo "ushc-$ID-h$1"; }
host_addr() { echo "$subnet.$((10 + $1))"; }
host_name() { echo "c$ID-h$1"; }

# CPUs: with --cpus split (the default) every host gets its own share of the CPUs this script may
# use (host I: the I-th of every HOSTS of them; with fewer CPUs than hosts, CPU I mod count), as a
# cpuset cgroup (v1) when the machine has one, else by the affinity of the host's processes
# (taskset). A cgroup is what a batch system's allocation looks like: hwloc, and so mpirun's binding
# and ushmem's choice of CPUs for a progress thread, see only the host's CPUs. --cpus shared: every
# host runs on every CPU (hosts then compete for them without knowing it).
cpuset_root=/sys/fs/cgroup/cpuset
cg_dir() { echo "$CGROUP_BASE/ushmem-cluster-$ID-h$1"; }
allowed_cpus() {
    local part a b
    for part in $(awk '/^Cpus_allowed_list:/ {gsub(",", " ", $2); print $2}' /proc/self/status); do
        a=${part%-*} b=${part#*-}
        seq "$a" "$b"
    done
}
host_cpus() {
    local i=$1 pool n j out=""
    mapfile -t pool < <(allowed_cpus)
    n=${#pool[@]}
    if [ "$n" -lt "$HOSTS" ]; then echo "${pool[i % n]}"; return; fi
    for ((j = i; j < n; j += HOSTS)); do out+="${out:+,}${pool[j]}"; done
    echo "$out"
}

# The start time of a process (field 22 of /proc/PID/stat), so that a reused pid is not taken for
# the owner.
start_time() { awk '{sub(/^.*\) /, ""); print $20}' "/proc/$1/stat" 2>/dev/null; }

# ---- processes inside the cluster's namespaces ----
# The inode of a namespace file, only while it is one (a bind mount of nsfs): once unmounted, the
# plain file under it must not stand for a namespace.
ns_ino() {
    local f
    for f in "$@"; do
        [ "$(stat -L -f -c %T "$f" 2>/dev/null)" = nsfs ] && stat -L -c %i "$f"
    done
}
# The namespaces of the cluster: the head's network namespace, every host's three.
ns_inodes() {
    local i
    ns_ino "/run/netns/$(ns_head)"
    for ((i = 0; i < HOSTS; ++i)); do host_inodes "$i"; done
}
# pids of processes in the given namespace inodes (any of net, ipc, uts): one stat for all.
pids_in() {
    stat -L -c '%n %i' /proc/[0-9]*/ns/net /proc/[0-9]*/ns/ipc /proc/[0-9]*/ns/uts 2>/dev/null |
        awk -v want=" $* " 'index(want, " " $2 " ") {split($1, f, "/"); print f[3]}' | sort -un
}
host_inodes() { ns_ino "/run/netns/$(ns_host "$1")" "$DIR/h$1.ipc" "$DIR/h$1.uts"; }
# SIGKILL every process in the namespaces until none is left (a process may fork meanwhile).
kill_all_in() {
    local pids n
    for ((n = 0; n < 50; ++n)); do
        pids=$(pids_in "$@" | grep -vx "$$")
        [ -z "$pids" ] && return 0
        # shellcheck disable=SC2086
        kill -KILL $pids 2>/dev/null
        sleep 0.1  # the kernel reaps them; look again
    done
    echo "$me: processes still alive in the cluster: $(pids_in "$@" | tr '\n' ' ')" >&2
    return 1
}

# ---- up ----
cmd_up() {
    local hosts=2 slots=2 owner=$PPID cpus=split
    while [ $# -gt 0 ]; do
        case $1 in
        --hosts) hosts=$2; shift 2 ;;
        --slots) slots=$2; shift 2 ;;
        --cpus) cpus=$2; shift 2 ;;
        --owner) owner=$2; shift 2 ;;
        *) die "up: unknown option '$1'" ;;
        esac
    done
    [[ "$hosts" =~ ^[1-9][0-9]?$ ]] && [ "$hosts" -le 50 ] || die "--hosts must be 1 to 50"
    [[ "$slots" =~ ^[1-9][0-9]*$ ]] || die "--slots must be a positive number"
    [ "$cpus" = split ] || [ "$cpus" = shared ] || die "--cpus must be split or shared"
    need_root
    cmd_reap
    mkdir -p "$base" || die "cannot create $base"
    local id dir
    for ((;;)); do
        id=$(printf '%04x%02x' $((RANDOM)) $((RANDOM % 256)))
        dir=$base/$id
        mkdir "$dir" 2>/dev/null && break
    done
    # The cpuset cgroups of the hosts go under this script's own cpuset (if the machine has v1 ones).
    local cg_base=""
    if [ "$cpus" = split ] && [ -w "$cpuset_root/cpuset.cpus" ]; then
        cg_base=$(echo "$cpuset_root$(cat /proc/self/cpuset 2>/dev/null)" | sed 's|/*$||')
    fi
    ID=$id HOSTS=$hosts SLOTS=$slots DIR=$dir CPUS=$cpus CGROUP_BASE=$cg_base
    printf 'ID=%s\nHOSTS=%s\nSLOTS=%s\nCPUS=%s\nCGROUP_BASE=%s\nOWNER=%s\nOWNER_START=%s\n' "$id" \
        "$hosts" "$slots" "$cpus" "$cg_base" "$owner" "$(start_time "$owner")" > "$dir/conf"
    # From here on a failure takes down what was made.
    if ! build_cluster; then
        echo "$me: could not create the simulated cluster (see the error above); removing it" >&2
        cmd_down "$dir" >/dev/null 2>&1
        exit 1
    fi
    echo "$dir"
}

run_step() {
    "$@" || { echo "$me: failed: $*" >&2; return 1; }
}

build_cluster() {
    local head i ns
    head=$(ns_head)
    # The namespace files of the hosts' UTS and IPC namespaces are bind mounts, which must not be
    # on a shared mount (they would propagate): the directory is made a private mount of itself.
    run_step mount --bind "$DIR" "$DIR" && run_step mount --make-private "$DIR" || return 1
    run_step ip netns add "$head" || return 1
    run_step ip -n "$head" link set lo up || return 1
    run_step ip -n "$head" link add br0 type bridge || return 1
    run_step ip -n "$head" addr add "$subnet.1/24" dev br0 || return 1
    run_step ip -n "$head" link set br0 up || return 1
    : > "$DIR/hostfile"
    for ((i = 0; i < HOSTS; ++i)); do
        ns=$(ns_host "$i")
        run_step ip netns add "$ns" || return 1
        # Both ends are created inside the cluster: the pair never appears in the root namespace.
        run_step ip -n "$head" link add "h$i" type veth peer name eth0 netns "$ns" || return 1
        run_step ip -n "$head" link set "h$i" master br0 || return 1
        run_step ip -n "$head" link set "h$i" up || return 1
        run_step ip -n "$ns" link set lo up || return 1
        run_step ip -n "$ns" addr add "$(host_addr "$i")/24" dev eth0 || return 1
        run_step ip -n "$ns" link set eth0 up || return 1
        touch "$DIR/h$i.uts" "$DIR/h$i.ipc"
        run_step unshare --uts="$DIR/h$i.uts" --ipc="$DIR/h$i.ipc" hostname "$(host_name "$i")" || return 1
        mkdir -p "$DIR/h$i.tmp"
        echo "$(host_addr "$i") slots=$SLOTS" >> "$DIR/hostfile"
        if [ "$CPUS" = split ]; then
            host_cpus "$i" > "$DIR/h$i.cpus"
            if [ -n "$CGROUP_BASE" ]; then
                local cg
                cg=$(cg_dir "$i")
                run_step mkdir "$cg" || return 1
                cat "$CGROUP_BASE/cpuset.mems" > "$cg/cpuset.mems" &&
                    cat "$DIR/h$i.cpus" > "$cg/cpuset.cpus" ||
                    { echo "$me: cannot set up the cpuset cgroup $cg" >&2; return 1; }
            fi
        fi
    done
    # The rsh agent: mpirun calls `agent [options] HOST COMMAND...` (as it would call ssh).
    {
        echo "#!/bin/sh"
        echo "# rsh agent of the simulated cluster $DIR (ci/cluster.sh): runs the command, joined as"
        echo "# ssh joins it, in the host's network, UTS and IPC namespaces."
        echo "while [ \$# -gt 0 ] && [ \"\${1#-}\" != \"\$1\" ]; do shift; done"
        echo "case \$1 in"
        for ((i = 0; i < HOSTS; ++i)); do
            echo "$(host_addr "$i")|$(host_name "$i")) h=$i ns=$(ns_host "$i") ;;"
        done
        echo "*) echo \"$DIR/agent: unknown host '\$1'\" >&2; exit 255 ;;"
        echo "esac"
        echo "shift"
        echo "export TMPDIR=$DIR/h\$h.tmp"
        echo "enter=\"nsenter --net=/run/netns/\$ns --uts=$DIR/h\$h.uts --ipc=$DIR/h\$h.ipc --\""
        if [ "$CPUS" = split ]; then
            if [ -n "$CGROUP_BASE" ]; then
                echo "# The host's CPUs: its cpuset cgroup (the orted and every PE it starts)."
                echo "echo \$\$ > $CGROUP_BASE/ushmem-cluster-$ID-h\$h/tasks || exit 255"
            else
                echo "# The host's CPUs (no cpuset cgroup here): the affinity of its processes."
                echo "enter=\"taskset -c \$(cat $DIR/h\$h.cpus) \$enter\""
            fi
        fi
        echo "exec \$enter /bin/sh -c \"\$*\""
    } > "$DIR/agent"
    chmod +x "$DIR/agent"
}

# ---- the environment of a job on the cluster ----
job_env() {
    export OMPI_MCA_orte_default_hostfile=$DIR/hostfile
    export OMPI_MCA_plm_rsh_agent=$DIR/agent
    export OMPI_MCA_plm_rsh_no_tree_spawn=1
    export OMPI_MCA_oob_tcp_if_include=$subnet.0/24
    export OMPI_MCA_btl_tcp_if_include=$subnet.0/24
    # Ranks round-robin over the hosts (0 on host 0, 1 on host 1, ...), so that a job of any size
    # from 2 PEs spans hosts; `mpirun --map-by slot` fills host 0 first instead.
    export OMPI_MCA_rmaps_base_mapping_policy=node
    export CLUSTER_DIR=$DIR  # for commands that act on the cluster (kill-host, leftovers)
}

cmd_exec() {
    local dir=${1:?usage: exec DIR -- COMMAND...}
    shift
    [ "${1-}" = "--" ] && shift
    [ $# -gt 0 ] || die "exec: no command given"
    need_root
    load "$dir"
    job_env
    exec nsenter --net="/run/netns/$(ns_head)" -- "$@"
}

# ---- kill a host ----
cmd_kill_host() {
    local dir=${1:?usage: kill-host DIR I} i=${2:?usage: kill-host DIR I} pids
    load "$dir"
    [[ "$i" =~ ^[0-9]+$ ]] && [ "$i" -lt "$HOSTS" ] || die "kill-host: no host $i (0 to $((HOSTS - 1)))"
    # Stop all of them first, then kill: no process of the host runs (or notices a sibling's
    # death) between the first and the last kill, as when a machine loses power.
    pids=$(pids_in $(host_inodes "$i") | grep -vx "$$")
    [ -n "$pids" ] || die "kill-host: no process runs on host $i"
    # shellcheck disable=SC2086
    kill -STOP $pids 2>/dev/null
    # shellcheck disable=SC2086
    kill -KILL $pids 2>/dev/null
    kill_all_in $(host_inodes "$i")
}

# ---- what jobs left in the hosts ----
cmd_leftovers() {
    local dir=${1:?usage: leftovers DIR} i segs files pids out deadline
    load "$dir"
    # The kernel may still be reaping the job's processes (and with them their segments) when
    # mpirun has returned: wait up to 5 s for those two to go; files do not go away by waiting.
    deadline=$(($(date +%s) + 5))
    for ((;;)); do
        out=""
        for ((i = 0; i < HOSTS; ++i)); do
            pids=$(pids_in $(host_inodes "$i") | tr '\n' ' ')
            [ -n "$pids" ] && out+="host $i: processes $pids; "
            segs=$(nsenter --ipc="$DIR/h$i.ipc" ipcs -m | awk 'NR > 3 && NF >= 6 {print $2 " (" $5 " bytes, " $6 " attached)"}' | tr '\n' ' ')
            [ -n "$segs" ] && out+="host $i: sysv segments $segs; "
        done
        [ -z "$out" ] || [ "$(date +%s)" -ge "$deadline" ] && break
        sleep 0.1  # waiting for the kernel, not for the job (which has ended)
    done
    for ((i = 0; i < HOSTS; ++i)); do
        # Files named after the host (Open MPI's vader segments, ...), its TMPDIR's content.
        files=$(ls /dev/shm 2>/dev/null | grep -F "$(host_name "$i")" | tr '\n' ' ')
        [ -n "$files" ] && out+="host $i: /dev/shm files $files; "
        files=$(ls -A "$DIR/h$i.tmp" 2>/dev/null | tr '\n' ' ')
        [ -n "$files" ] && out+="host $i: files in its TMPDIR $files; "
    done
    [ -z "$out" ] || echo "${out%; }"
}

# The files a host's killed processes could not remove (names unique to this cluster): what a
# reboot of that host would clear. Only when nothing runs on it.
cmd_clean_host() {
    local dir=${1:?usage: clean-host DIR I} i=${2:?usage: clean-host DIR I}
    load "$dir"
    [[ "$i" =~ ^[0-9]+$ ]] && [ "$i" -lt "$HOSTS" ] || die "clean-host: no host $i (0 to $((HOSTS - 1)))"
    [ -z "$(pids_in $(host_inodes "$i"))" ] || die "clean-host: processes still run on host $i"
    rm -f /dev/shm/*"$(host_name "$i")"* 2>/dev/null
    rm -rf "${DIR:?}/h$i.tmp" && mkdir "$DIR/h$i.tmp"
}

# ---- down ----
# One take-down at a time on the machine (a reap and the owner's own down may meet).
cmd_down() {
    local dir=${1:?usage: down DIR}
    [ -f "$dir/conf" ] || die "$dir is not a cluster directory (no $dir/conf)"
    ( flock 9 && down_locked "$dir" ) 9<"$base"
}
down_locked() {
    local dir=$1 i f rc=0
    [ -f "$dir/conf" ] || return 0  # taken down meanwhile
    load "$dir"
    kill_all_in $(ns_inodes) || rc=1
    for ((i = 0; i < HOSTS; ++i)); do
        # What a dead host's processes could not remove (names unique to this cluster).
        rm -f /dev/shm/*"$(host_name "$i")"* 2>/dev/null
        for f in uts ipc; do
            mountpoint -q "$DIR/h$i.$f" 2>/dev/null && { umount "$DIR/h$i.$f" || rc=1; }
        done
        ip netns del "$(ns_host "$i")" 2>/dev/null
        [ -n "$CGROUP_BASE" ] && [ -d "$(cg_dir "$i")" ] && { rmdir "$(cg_dir "$i")" || rc=1; }
    done
    ip netns del "$(ns_head)" 2>/dev/null  # with it, br0 and the veth pairs
    mountpoint -q "$DIR" && { umount "$DIR" || rc=1; }
    rm -rf "$DIR" || rc=1
    # Nothing of it may remain.
    for ((i = 0; i < HOSTS; ++i)); do
        [ -e "/run/netns/$(ns_host "$i")" ] && { echo "$me: namespace $(ns_host "$i") remains" >&2; rc=1; }
    done
    [ -e "/run/netns/$(ns_head)" ] && { echo "$me: namespace $(ns_head) remains" >&2; rc=1; }
    return $rc
}

# Take down the clusters whose owner process is gone (a run killed before its trap could act).
cmd_reap() {
    local d OWNER OWNER_START
    for d in "$base"/*/; do
        d=${d%/}
        [ -d "$d" ] || continue
        if [ ! -f "$d/conf" ]; then
            # A directory without its description: an `up` writing it right now, or the remains of
            # a take-down that was itself interrupted (older than a minute).
            if [ -n "$(find "$d" -maxdepth 0 -mmin +1)" ]; then
                mountpoint -q "$d" && umount -R "$d"
                rm -rf "$d"
            fi
            continue
        fi
        OWNER=$(sed -n 's/^OWNER=//p' "$d/conf")
        OWNER_START=$(sed -n 's/^OWNER_START=//p' "$d/conf")
        if [ -z "$OWNER" ] || [ "$(start_time "$OWNER")" != "$OWNER_START" ]; then
            echo "$me: removing the abandoned cluster $d (owner pid ${OWNER:-?} is gone)" >&2
            (cmd_down "$d")
        fi
    done
    return 0
}

cmd_list() {
    local d
    for d in "$base"/*/; do
        [ -f "$d/conf" ] && (load "${d%/}"; echo "${d%/}: $HOSTS hosts x $SLOTS slots, owner pid $(sed -n 's/^OWNER=//p' "$DIR/conf")")
    done
    return 0
}

# ---- run ----
cmd_run() {
    local up_args=() timeout=0
    while [ $# -gt 0 ] && [ "$1" != "--" ]; do
        case $1 in
        --hosts | --slots | --cpus) up_args+=("$1" "$2"); shift 2 ;;
        --timeout) timeout=$2; shift 2 ;;
        *) die "run: unknown option '$1' (the command comes after --)" ;;
        esac
    done
    [ "${1-}" = "--" ] && shift
    [ $# -gt 0 ] || die "run: no command given (ci/cluster.sh run -- mpirun -np 4 ./prog)"
    need_root
    local dir status leak left
    SECONDS=0
    dir=$(cmd_up "${up_args[@]}" --owner $$) || exit 1
    trap 'trap - EXIT; cmd_down "$dir"; exit 130' INT
    trap 'trap - EXIT; cmd_down "$dir"; exit 143' TERM
    trap 'cmd_down "$dir"' EXIT
    load "$dir"
    if [ "$timeout" != 0 ]; then
        # The whole run within --timeout: the command gets what the setup left, less 10 s for
        # the checks and the teardown (and 5 s more for it to end once signalled).
        left=$((timeout - SECONDS - 15))
        [ "$left" -ge 1 ] || left=1
    fi
    (
        job_env
        if [ "$timeout" != 0 ]; then
            exec timeout -k 5 "$left" nsenter --net="/run/netns/$(ns_head)" -- "$@"
        fi
        exec nsenter --net="/run/netns/$(ns_head)" -- "$@"
    )
    status=$?
    [ "$timeout" != 0 ] && [ $status = 124 ] &&
        echo "$me: the command did not end within $left s (--timeout $timeout less the cluster's setup and teardown): $*" >&2
    leak=$(cmd_leftovers "$dir")
    if [ -n "$leak" ]; then
        echo "$me: the job left behind: $leak" >&2
        [ $status = 0 ] && status=1
    fi
    trap - INT TERM EXIT
    cmd_down "$dir" || { echo "$me: could not remove the cluster $dir completely" >&2; [ $status = 0 ] && status=1; }
    return $status
}

main() {
    case ${1-} in
    up) shift; cmd_up "$@" ;;
    down) shift; need_root; cmd_down "$@" ;;
    run) shift; cmd_run "$@" ;;
    exec) shift; cmd_exec "$@" ;;
    kill-host) shift; need_root; cmd_kill_host "$@" ;;
    clean-host) shift; need_root; cmd_clean_host "$@" ;;
    leftovers) shift; need_root; cmd_leftovers "$@" ;;
    reap) shift; need_root; cmd_reap ;;
    list) shift; cmd_list ;;
    *)
        sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'
        [ "${1-}" = "-h" ] || [ "${1-}" = "--help" ]
        ;;
    esac
}

# One compound command, read whole before it runs: editing this file while a long `run` is under
# way (a benchmark) cannot make the running script read a changed line.
{ main "$@"; exit $?; }

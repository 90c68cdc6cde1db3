# leftovers.sh: sourced by the scripts that end jobs abnormally (fault.sh's approach, shared).
# Also command_np (at the end).
#
# command_np COMMAND...: the number of processes an mpirun command line asks for.
# job_leftovers PIDS JOB SHM_BEFORE [HP_BEFORE]: prints what a finished job left behind, nothing
# if nothing: System V shared-memory segments created or last attached by one of PIDS (ipcs -m -p),
# files of /dev/shm that were not in SHM_BEFORE (an `ls /dev/shm` taken before the run) and are
# named after JOB (Open MPI's job id in hex) or by UCX, and, given HP_BEFORE (HugePages_Free before
# the run; exact only when nothing else runs meanwhile), huge pages not given back. The job's
# processes are gone once mpirun has returned, but the kernel may still be reaping them: it polls
# for up to 10 s before reporting.
hp_free() { awk '/^HugePages_Free:/ {print $2}' /proc/meminfo; }
job_leftovers() {
    local pids=" $1 " job=${2:-none} shm_before=$3 hp_before=${4-} leak segs new_files hp_after w
    for ((w = 0; w < 100; ++w)); do
        leak=""
        segs=$(ipcs -m -p | awk -v pids="$pids" 'NR > 3 && NF >= 4 && (index(pids, " " $3 " ") || index(pids, " " $4 " ")) {print $1}')
        [ -n "$segs" ] && leak="shm segments $segs"
        new_files=$(comm -13 <(echo "$shm_before" | sort) <(ls /dev/shm | sort) | grep -E "$job|^ucx" | tr '\n' ' ')
        [ -n "$new_files" ] && leak="${leak:+$leak; }/dev/shm files $new_files"
        if [ -n "$hp_before" ]; then
            hp_after=$(hp_free)
            [ "${hp_after:-0}" -lt "$hp_before" ] && leak="${leak:+$leak; }HugePages_Free $hp_after < $hp_before"
        fi
        [ -z "$leak" ] && return 0
        sleep 0.1 # waiting for the kernel, not for the job (which has ended)
    done
    echo "$leak"
}

# command_np ARGS...: the N of "-np N" (or "-n N") in a launch command, 0 when there is none.
command_np() {
    local np=0 prev="" a
    for a in "$@"; do
        if [ "$prev" = "-np" ] || [ "$prev" = "-n" ]; then np=$a; fi
        prev=$a
    done
    echo "$np"
}

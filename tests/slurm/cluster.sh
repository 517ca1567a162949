#!/usr/bin/env bash
# A private single-node SLURM cluster for testing the job scripts (jobs/slurm/): munged, slurmctld
# and slurmd of this machine's Slurm packages, with everything (config, munge key and socket,
# state, spool, logs, pid files) under one folder, private ports on 127.0.0.1 only, no systemd, no
# cgroups, and no accounting. The node declares CPUs=4 whatever the machine has
# (SlurmdParameters=config_overrides). Needs root (slurmd runs jobs as their users).
#
#   source tests/slurm/cluster.sh; cluster_up DIR; ...; cluster_down DIR
#   bash tests/slurm/cluster.sh up DIR      (prints the export SLURM_CONF=... line for clients)
#   bash tests/slurm/cluster.sh down DIR
#
# cluster_up exports SLURM_CONF (clients need it) and returns once the node is idle; on failure it
# prints the daemons' logs and returns 1. cluster_down cancels every job, then stops the daemons by
# the PIDs in their pid files, and is safe to call more than once or after a failed start.

# a TCP port nobody listens on at 127.0.0.1 (connection refused), below the kernel's ephemeral
# range: a port picked inside it can be the local end of some outgoing connection, which no probe
# sees and which makes the daemon's bind fail (seen in CI: slurmd "Address already in use")
_cluster_free_port() { # AVOID
    local p lo=32768 span
    read -r lo _ </proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || true
    span=$((lo - 20000))
    [ "$span" -ge 1000 ] || span=12768
    for _ in $(seq 1 200); do
        p=$((20000 + (RANDOM * 32768 + RANDOM) % span))
        [ "$p" = "${1:-}" ] && continue
        if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then echo "$p"; return 0; fi
    done
    return 1
}

_cluster_log() { echo "cluster: $*" >&2; }

_cluster_dump_logs() { # DIR
    local f
    for f in "$1"/log/*.log; do
        [ -e "$f" ] || continue
        echo "----- $f (last 30 lines)" >&2
        tail -n 30 "$f" >&2
    done
}

_cluster_start() { # DIR
    local root=$1 host user pc pd state
    mkdir -p "$root"
    root=$(cd "$root" && pwd)
    host=$(hostname -s)
    user=$(id -un)
    mkdir -p "$root"/{run,log,state,spool/slurmd,tmp}
    chmod 755 "$root/run"   # as /run/munge: clients of any user reach the socket
    for b in munged slurmctld slurmd; do
        command -v "$b" >/dev/null 2>&1 || { _cluster_log "$b not found (apt-get install slurm-wlm munge)"; return 1; }
    done

    # munge: its own key (1 KiB, 0400), socket, pid, log and seed files
    if [ ! -e "$root/munge.key" ]; then
        (umask 277 && head -c 1024 /dev/urandom >"$root/munge.key")
    fi
    munged --force --socket="$root/run/munge.socket" --key-file="$root/munge.key" \
        --pid-file="$root/run/munged.pid" --log-file="$root/log/munged.log" \
        --seed-file="$root/state/munged.seed" --num-threads=2 || {
        _cluster_log "munged did not start"; _cluster_dump_logs "$root"; return 1; }

    if ! pc=$(_cluster_free_port) || ! pd=$(_cluster_free_port "$pc"); then _cluster_log "no free ports"; return 1; fi
    : >"$root/plugstack.conf"
    cat >"$root/slurm.conf" <<CONF
# private single-node test cluster (tests/slurm/cluster.sh)
ClusterName=axbtest
SlurmctldHost=$host(127.0.0.1)
SlurmUser=$user
SlurmdUser=root
SlurmctldPort=$pc
SlurmdPort=$pd
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$root/run/munge.socket
StateSaveLocation=$root/state
SlurmdSpoolDir=$root/spool/slurmd
SlurmctldPidFile=$root/run/slurmctld.pid
SlurmdPidFile=$root/run/slurmd.pid
SlurmctldLogFile=$root/log/slurmctld.log
SlurmdLogFile=$root/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
TmpFS=$root/tmp
PlugStackConfig=$root/plugstack.conf
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
JobAcctGatherType=jobacct_gather/none
SlurmdParameters=config_overrides
SchedulerParameters=batch_sched_delay=0
ReturnToService=2
MailProg=/bin/true
MinJobAge=600
KillWait=5
InactiveLimit=0
NodeName=$host NodeAddr=127.0.0.1 CPUs=4 RealMemory=1024 State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
    export SLURM_CONF="$root/slurm.conf"
    slurmctld -c -f "$SLURM_CONF" || { _cluster_log "slurmctld did not start"; _cluster_dump_logs "$root"; return 1; }
    slurmd -f "$SLURM_CONF" || { _cluster_log "slurmd did not start"; _cluster_dump_logs "$root"; return 1; }
    # 30 s at most: with no controller each sinfo would wait for its own message timeout, so it
    # is bounded too, and a daemon that died (a port taken, say) ends the wait at once
    local deadline=$((SECONDS + 30)) d
    while [ "$SECONDS" -lt "$deadline" ]; do
        state=$(timeout 5 sinfo -h -n "$host" -o %t 2>/dev/null || true)
        case "$state" in idle*) _cluster_log "up in $root (node $host, ports $pc/$pd)"; return 0 ;; esac
        for d in slurmctld slurmd; do
            # a daemon writes its PID file only once it has forked and set up: under load that can
            # come after the first check, and a missing file means "still starting", not "exited"
            [ -s "$root/run/$d.pid" ] || continue
            _cluster_pid "$root/run/$d.pid" >/dev/null || { state="$d exited"; break 2; }
        done
        sleep 0.2
    done
    _cluster_log "the node did not become idle (state '${state:-?}')"
    _cluster_dump_logs "$root"
    return 1
}

cluster_up() { # DIR
    # a port taken between the probe and the bind is the one failure a new pair of ports cures
    local try
    for try in 1 2 3; do
        _cluster_start "$1" && return 0
        [ "$try" -lt 3 ] && grep -qs "Address already in use" "$1"/log/slurmctld.log "$1"/log/slurmd.log || return 1
        _cluster_log "a port was taken; starting again with other ports (try $((try + 1)) of 3)"
        cluster_down "$1"
        rm -f "$1"/log/slurmctld.log "$1"/log/slurmd.log
    done
    return 1
}

_cluster_pid() { # PIDFILE -> the PID it holds, if that process is alive
    local pid
    [ -s "$1" ] || return 1
    pid=$(cat "$1")
    [[ "$pid" =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null && echo "$pid"
}

cluster_down() { # DIR
    local root=$1 pids=() pid f
    [ -d "$root" ] || return 0
    if [ -e "$root/slurm.conf" ] && _cluster_pid "$root/run/slurmctld.pid" >/dev/null; then
        local -x SLURM_CONF="$root/slurm.conf"
        if [ -n "$(squeue -h -o %i 2>/dev/null)" ]; then
            scancel --user="$(id -un)" 2>/dev/null || true
            for _ in $(seq 1 50); do [ -z "$(squeue -h -o %i 2>/dev/null)" ] && break; sleep 0.1; done
        fi
    fi
    # the three daemons at once (each takes a second or two to exit), by their pid files only
    for f in slurmd slurmctld munged; do
        if pid=$(_cluster_pid "$root/run/$f.pid"); then kill "$pid" 2>/dev/null && pids+=("$pid:$f"); fi
    done
    for _ in $(seq 1 100); do
        local alive=0
        for pid in "${pids[@]}"; do kill -0 "${pid%%:*}" 2>/dev/null && alive=1; done
        [ "$alive" = 0 ] && return 0
        sleep 0.1
    done
    for pid in "${pids[@]}"; do
        if kill -0 "${pid%%:*}" 2>/dev/null; then
            _cluster_log "${pid#*:} (${pid%%:*}) did not stop; killing it"
            kill -9 "${pid%%:*}" 2>/dev/null || true
        fi
    done
    return 0
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    set -euo pipefail
    case "${1:-}" in
        up) [ $# = 2 ] || { echo "usage: cluster.sh up|down DIR" >&2; exit 2; }
            cluster_up "$2"; echo "export SLURM_CONF=$SLURM_CONF" ;;
        down) [ $# = 2 ] || { echo "usage: cluster.sh up|down DIR" >&2; exit 2; }
            cluster_down "$2" ;;
        *) echo "usage: cluster.sh up|down DIR" >&2; exit 2 ;;
    esac
fi

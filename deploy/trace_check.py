#!/usr/bin/env python3
"""Checks what sensei-server did under strace against the sandbox of
deploy/sensei-server.service, so that a change that would break the service
under systemd shows up here, where no systemd runs:

  SystemCallFilter=@system-service ~@privileged   every system call made is allowed
                                                  (groups expanded by systemd-analyze)
  RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX  no other socket family
  MemoryDenyWriteExecute=yes                     no mmap writable+executable, no
                                                  mprotect/pkey_mprotect to executable
  ProtectSystem=strict, PrivateTmp               writes only under the data directory,
                                                  /tmp, /var/tmp, /dev/null…
  ProtectHome=yes                                nothing under /home, /root, /run/user
  PrivateDevices=yes                             only the pseudo-devices it provides
  ProtectProc=invisible, ProcSubset=pid          only /proc/self and /proc/<pid> entries

Usage: trace_check.py TRACE DATA_DIR   (TRACE from strace -f -s 4096 -o TRACE …)
Prints what it found and exits 1 on any violation.
"""

import re
import subprocess
import sys


def syscall_groups():
    """{"@group": [members]} as this systemd knows them."""
    output = subprocess.run(["systemd-analyze", "syscall-filter"], capture_output=True, text=True, check=True).stdout
    groups, current = {}, None
    for line in output.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if not line[0].isspace():
            current = stripped
            groups[current] = []
        elif current:
            groups[current].append(stripped)
    return groups


def expand(name, groups, seen=None):
    seen = set() if seen is None else seen
    if not name.startswith("@"):
        return {name}
    if name in seen:
        return set()
    seen.add(name)
    calls = set()
    for member in groups[name]:
        calls |= expand(member, groups, seen)
    return calls


# "1234  name(args…) = result", "1234  <... name resumed>…", with or without the pid.
CALL = re.compile(r"^(?:\d+\s+)?(?:<\.\.\. ([a-z0-9_]+) resumed>|([a-z0-9_]+)\()(.*)$")
STRING = re.compile(r'"((?:[^"\\]|\\.)*)"')
WRITE_FLAGS = ("O_WRONLY", "O_RDWR", "O_CREAT", "O_TRUNC")
PATH_WRITES = {"mkdir", "mkdirat", "unlink", "unlinkat", "rmdir", "rename", "renameat", "renameat2",
               "link", "linkat", "symlink", "symlinkat", "truncate", "chmod", "fchmodat", "chown",
               "fchownat", "lchown", "utimensat", "mknod", "mknodat"}
PATH_CALLS = PATH_WRITES | {"open", "openat", "openat2", "creat", "stat", "lstat", "newfstatat", "statx",
                            "access", "faccessat", "faccessat2", "readlink", "readlinkat", "execve",
                            "chdir", "statfs", "getxattr", "lgetxattr", "listxattr", "inotify_add_watch"}
DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty", "/dev/ptmx",
           "/dev/pts", "/dev/shm", "/dev/mqueue", "/dev/hugepages", "/dev/log", "/dev/stdin",
           "/dev/stdout", "/dev/stderr", "/dev/fd")


def under(path, roots):
    return any(path == root or path.startswith(root.rstrip("/") + "/") for root in roots)


def main(trace_path, data_dir):
    groups = syscall_groups()
    allowed = expand("@system-service", groups) - expand("@privileged", groups)
    used, problems = {}, []

    def problem(kind, line):
        if len(problems) < 40:
            problems.append("%s: %s" % (kind, line.strip()[:240]))

    writable = [data_dir, "/tmp", "/var/tmp", "/dev/null", "/dev/shm"]
    with open(trace_path, errors="replace") as trace:
        for line in trace:
            match = CALL.match(line)
            if not match:
                continue
            name = match.group(1) or match.group(2)
            args = match.group(3)
            used[name] = used.get(name, 0) + 1
            if match.group(1):  # a resumed call: its arguments were on the first line
                continue
            if name in ("socket", "socketpair"):
                family = args.split(",")[0].strip()
                if family not in ("AF_INET", "AF_INET6", "AF_UNIX", "AF_LOCAL"):
                    problem("RestrictAddressFamilies", line)
            elif name == "mmap":
                parts = args.split(",")
                prot = parts[2] if len(parts) > 2 else ""
                if "PROT_WRITE" in prot and "PROT_EXEC" in prot:
                    problem("MemoryDenyWriteExecute (mmap W+X)", line)
            elif name in ("mprotect", "pkey_mprotect"):
                parts = args.split(",")
                if len(parts) > 2 and "PROT_EXEC" in parts[2]:
                    problem("MemoryDenyWriteExecute (%s to X)" % name, line)
            elif name == "shmat" and "SHM_EXEC" in args:
                problem("MemoryDenyWriteExecute (shmat SHM_EXEC)", line)
            if name not in PATH_CALLS:
                continue
            paths = STRING.findall(args.split(") =")[0])
            if name == "execve":
                continue  # the binary itself, started by strace
            writes = name in PATH_WRITES or (name in ("open", "openat", "openat2", "creat")
                                             and (name == "creat" or any(f in args for f in WRITE_FLAGS)))
            for path in paths:
                if not path.startswith("/"):
                    if writes:
                        problem("relative path written (working directory unknown)", line)
                    continue
                if under(path, ["/home", "/root", "/run/user"]):
                    problem("ProtectHome", line)
                if path.startswith("/dev/") and not under(path, DEVICES):
                    problem("PrivateDevices", line)
                if path.startswith("/proc/"):
                    first = path.split("/")[2]
                    # glibc's malloc reads overcommit_memory when it trims a
                    # thread's heap; under ProcSubset=pid the open fails and
                    # glibc assumes the default heuristic, so it is harmless.
                    if path == "/proc/sys/vm/overcommit_memory":
                        continue
                    if not (first.isdigit() or first in ("self", "thread-self")):
                        problem("ProcSubset=pid", line)
                if writes and not under(path, writable):
                    problem("ProtectSystem=strict (write outside the data directory)", line)

    for name in sorted(used):
        if name not in allowed:
            problems.insert(0, "SystemCallFilter: %s (%d calls) is not in @system-service minus @privileged"
                            % (name, used[name]))
    if not used:
        problems.append("the trace holds no system calls")
    print("traced %d system calls of %d kinds: %s" % (sum(used.values()), len(used), " ".join(sorted(used))))
    for line in problems:
        print("  sandbox violation: " + line)
    return 1 if problems else 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1], sys.argv[2]))

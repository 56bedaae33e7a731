// The system calls a sandbox refuses, with each architecture's numbers. The numbers are the
// kernel's ABI (arch/x86/entry/syscalls/syscall_64.tbl and include/uapi/asm-generic/unistd.h,
// which arm64 uses); a test reads them again from the installed kernel headers.

/** The architectures warden can build a filter for, by Node's name for them. */
export type SeccompArch = "x64" | "arm64";

/** What a refused call returns to the caller. */
export type Refusal = "EPERM" | "ENOSYS";

export interface DeniedSyscall {
  name: string;
  /** The number per architecture; absent where the architecture has no such call. */
  numbers: Partial<Record<SeccompArch, number>>;
  /**
   * EPERM for calls a program should take as "not allowed"; ENOSYS for io_uring, so that
   * runtimes which try it first (libuv, Bun) fall back to ordinary reads and writes.
   */
  refusal: Refusal;
  why: string;
}

function call(
  name: string,
  x64: number | undefined,
  arm64: number | undefined,
  why: string,
  refusal: Refusal = "EPERM",
): DeniedSyscall {
  const numbers: Partial<Record<SeccompArch, number>> = {};
  if (x64 !== undefined) numbers.x64 = x64;
  if (arm64 !== undefined) numbers.arm64 = arm64;
  return { name, numbers, refusal, why };
}

const KEYS = "kernel keyrings are shared by every process of the host uid";
const MOUNTS = "the sandbox's file system is fixed before the runner starts";
const MODULES = "loading kernel code is never a coding agent's business";
const CLOCK = "the clock is the host's";
const NAMESPACES = "the sandbox's namespaces are fixed before the runner starts";
const HANDLES = "file handles open files by inode, around the sandbox's mounts";
const URING = "io_uring has been the source of many kernel escapes; runtimes fall back without it";
const X86_IO = "raw I/O ports are hardware access";
const OBSOLETE = "an obsolete call with no use left";

/**
 * Calls no coding agent needs and that widen the kernel surface a hostile task can reach.
 * `ptrace` is not among them: the sandbox's PID namespace already confines it to the sandbox's
 * own processes, and debuggers and `strace` are ordinary tools of the trade.
 */
export const DENIED_SYSCALLS: readonly DeniedSyscall[] = [
  call("keyctl", 250, 219, KEYS),
  call("add_key", 248, 217, KEYS),
  call("request_key", 249, 218, KEYS),
  call("bpf", 321, 280, "eBPF programs run in the kernel"),
  call("userfaultfd", 323, 282, "userfaultfd is a staple of kernel race exploits"),
  call("perf_event_open", 298, 241, "performance counters leak the host's activity"),
  call("mount", 165, 40, MOUNTS),
  call("umount2", 166, 39, MOUNTS),
  call("pivot_root", 155, 41, MOUNTS),
  call("chroot", 161, 51, MOUNTS),
  call("move_mount", 429, 429, MOUNTS),
  call("open_tree", 428, 428, MOUNTS),
  call("fsopen", 430, 430, MOUNTS),
  call("fsconfig", 431, 431, MOUNTS),
  call("fsmount", 432, 432, MOUNTS),
  call("fspick", 433, 433, MOUNTS),
  call("mount_setattr", 442, 442, MOUNTS),
  call("kexec_load", 246, 104, MODULES),
  call("kexec_file_load", 320, 294, MODULES),
  call("init_module", 175, 105, MODULES),
  call("finit_module", 313, 273, MODULES),
  call("delete_module", 176, 106, MODULES),
  call("swapon", 167, 224, "swap is the host's"),
  call("swapoff", 168, 225, "swap is the host's"),
  call("reboot", 169, 142, "the machine is the host's"),
  call("acct", 163, 89, "process accounting is the host's"),
  call("settimeofday", 164, 170, CLOCK),
  call("clock_settime", 227, 112, CLOCK),
  call("clock_adjtime", 305, 266, CLOCK),
  call("adjtimex", 159, 171, CLOCK),
  call("syslog", 103, 116, "the kernel log shows the host's activity"),
  call("quotactl", 179, 60, "disk quotas are the host's"),
  call("quotactl_fd", 443, 443, "disk quotas are the host's"),
  call("unshare", 272, 97, NAMESPACES),
  call("setns", 308, 268, NAMESPACES),
  call("open_by_handle_at", 304, 265, HANDLES),
  call("name_to_handle_at", 303, 264, HANDLES),
  call("fanotify_init", 300, 262, "fanotify watches whole file systems"),
  call("lookup_dcookie", 212, 18, OBSOLETE),
  call("vhangup", 153, 58, "terminals are the host's"),
  call("io_uring_setup", 425, 425, URING, "ENOSYS"),
  call("io_uring_enter", 426, 426, URING, "ENOSYS"),
  call("io_uring_register", 427, 427, URING, "ENOSYS"),
  call("iopl", 172, undefined, X86_IO),
  call("ioperm", 173, undefined, X86_IO),
  call("uselib", 134, undefined, OBSOLETE),
  call("_sysctl", 156, undefined, OBSOLETE),
  call("nfsservctl", 180, 42, OBSOLETE),
  call("create_module", 174, undefined, OBSOLETE),
  call("get_kernel_syms", 177, undefined, OBSOLETE),
  call("query_module", 178, undefined, OBSOLETE),
];

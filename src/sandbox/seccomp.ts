/**
 * The seccomp filter every sandboxed process runs under, as a classic BPF program (the bytes
 * bubblewrap's `--seccomp FD` loads). It refuses with EPERM what the mount and PID namespaces do
 * not already stop: new unix-domain sockets (host services behind socket files: Docker, D-Bus,
 * ssh-agent, X11), tracing and reading other processes' memory, the kernel keyrings (shared with
 * the host session), eBPF, perf events, userfaultfd and io_uring (whose operations seccomp cannot
 * see). A syscall of another ABI (32-bit `int 0x80`, x32) is refused whole, so a number cannot be
 * smuggled past the table. `socketpair` stays allowed: it makes an unnamed pair and reaches
 * nothing (libuv and shells use it for pipes).
 */
import { isKeyOf } from '../process/guards.ts';

/** The architectures the filter knows: AUDIT_ARCH_* and their syscall numbers. */
const ARCHES = {
  x64: {
    audit: 0xc000003e,
    socket: 41,
    denied: [101, 310, 311, 248, 249, 250, 321, 298, 323, 425, 426, 427],
    /** x32 syscalls carry this bit on x86_64. */
    x32Bit: 0x40000000,
  },
  arm64: {
    audit: 0xc00000b7,
    socket: 198,
    denied: [117, 270, 271, 217, 218, 219, 280, 241, 282, 425, 426, 427],
    x32Bit: undefined,
  },
} as const;

const AF_UNIX = 1;
const EPERM = 1;

// Classic BPF opcodes (linux/filter.h) and seccomp return values (linux/seccomp.h).
const LD_W_ABS = 0x20;
const JEQ_K = 0x15;
const JGE_K = 0x35;
const RET_K = 0x06;
const RET_ALLOW = 0x7fff0000;
const RET_ERRNO = 0x00050000;
const RET_KILL_PROCESS = 0x80000000;
/** Offsets in struct seccomp_data: nr, arch, args[0] (its low 32 bits on these little-endian machines). */
const NR = 0;
const ARCH = 4;
const ARG0 = 16;

type Insn = [code: number, jt: number, jf: number, k: number];

/** True when this machine's architecture has a filter. */
export function seccompSupported(arch: string = process.arch): boolean {
  return arch in ARCHES;
}

/** The filter's instructions for `arch`, each [code, jt, jf, k]. */
export function seccompProgram(arch: string = process.arch, options: { allowUnixSockets?: boolean } = {}): Insn[] {
  if (!isKeyOf(ARCHES, arch)) throw new Error(`no seccomp filter for ${arch}`);
  const a = ARCHES[arch];
  const deny: Insn = [RET_K, 0, 0, RET_ERRNO | EPERM];
  const allow: Insn = [RET_K, 0, 0, RET_ALLOW];
  // After the table: socket(AF_UNIX, …) refused, every other socket allowed; the last insn is the EPERM.
  const tail: Insn[] = options.allowUnixSockets
    ? [allow, deny]
    : [[JEQ_K, 0, 2, a.socket], [LD_W_ABS, 0, 0, ARG0], [JEQ_K, 1, 0, AF_UNIX], allow, deny];
  // Each denied number jumps to that EPERM when it matches.
  const n = a.denied.length;
  const body = a.denied.map((nr, i): Insn => [JEQ_K, n + tail.length - 2 - i, 0, nr]);
  const head: Insn[] = [
    [LD_W_ABS, 0, 0, ARCH],
    [JEQ_K, 1, 0, a.audit],
    [RET_K, 0, 0, RET_KILL_PROCESS],
    [LD_W_ABS, 0, 0, NR],
  ];
  if (a.x32Bit !== undefined) head.push([JGE_K, 0, 1, a.x32Bit], deny);
  return [...head, ...body, ...tail];
}

/** The program as the kernel's struct sock_filter array (8 bytes each, little-endian). */
export function seccompBytes(arch: string = process.arch, options: { allowUnixSockets?: boolean } = {}): Buffer {
  const program = seccompProgram(arch, options);
  const bytes = Buffer.alloc(program.length * 8);
  program.forEach(([code, jt, jf, k], i) => {
    bytes.writeUInt16LE(code, i * 8);
    bytes.writeUInt8(jt, i * 8 + 2);
    bytes.writeUInt8(jf, i * 8 + 3);
    bytes.writeUInt32LE(k >>> 0, i * 8 + 4);
  });
  return bytes;
}

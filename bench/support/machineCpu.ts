// What the whole machine spends, from /proc/stat: a sandbox's processes are reaped inside its
// own PID namespace, so a process's own and its children's times miss most of them.
import { readFile } from "node:fs/promises";

/** The unit of the CPU times in /proc (USER_HZ, 100 on every Linux architecture). */
export const CLOCK_TICKS_PER_SECOND = 100;

/** CPU time, in ms, the whole machine has spent busy since it booted. */
export async function machineCpuMs(): Promise<number> {
  const fields = (await readFile("/proc/stat", "utf8")).split("\n")[0]?.trim().split(/\s+/) ?? [];
  // user nice system idle iowait irq softirq steal: busy is all but idle and iowait.
  const [user, nice, system, , , irq, softirq, steal] = fields.slice(1).map(Number);
  const busy = [user, nice, system, irq, softirq, steal].reduce<number>((a, b) => a + (b ?? 0), 0);
  return (busy * 1000) / CLOCK_TICKS_PER_SECOND;
}

/** The processes (and threads) the machine has started since it booted. */
export async function startedProcesses(): Promise<number> {
  const line = (await readFile("/proc/stat", "utf8"))
    .split("\n")
    .find((l) => l.startsWith("processes "));
  return Number(line?.split(" ")[1] ?? 0);
}

// A bundle that lies in its header: the bytes of a real bundle with a prerequisite line added,
// so that an unrelated history claims to build on the task's base (the verifier must refuse it).
import { readFile, writeFile } from "node:fs/promises";

export async function withForgedPrerequisite(
  bundle: string,
  base: string,
  out: string,
): Promise<void> {
  const bytes = await readFile(bundle);
  const firstLine = bytes.indexOf("\n") + 1;
  await writeFile(
    out,
    Buffer.concat([
      bytes.subarray(0, firstLine),
      Buffer.from(`-${base} base\n`),
      bytes.subarray(firstLine),
    ]),
  );
}

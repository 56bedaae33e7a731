// What a schema found wrong with a value, in words a message can carry.
import type { core } from "zod";
import { cleanLine } from "./clean.js";

/**
 * The first issue a schema found, as `where: what`, both cleaned: either may hold text from the
 * sandbox or from a file. `whole` names the value when the issue is about all of it.
 */
export function firstIssue(error: core.$ZodError, whole: string): string {
  const issue = error.issues[0];
  const where = issue?.path.length ? issue.path.join(".") : whole;
  return `${cleanLine(where)}: ${cleanLine(issue?.message ?? "invalid")}`;
}

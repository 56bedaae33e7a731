// Schemas of zod's "mini" build, made on their first use. The runner checks its share with them
// at the start of every sandbox: a mini schema carries no methods of its own, so it is about
// half as costly to build and to run the first time as a classic one (scripts/bundleGuest.mjs).
// Unlike the classic build, the mini one sets no language for its messages when it loads, and
// a message is all a refusal says: English is set before the first schema is made.
import * as z from "zod/mini";
import { memo } from "../lang/index.js";

const inEnglish = memo(() => {
  z.config(z.locales.en());
});

/** `make`'s schema, made on the first call (with English messages) and returned ever after. */
export function miniSchema<T>(make: () => T): () => T {
  return memo(() => {
    inEnglish();
    return make();
  });
}

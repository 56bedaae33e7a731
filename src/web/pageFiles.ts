// The dashboard's page as the build left it (scripts/bundlePage.mjs): read once at start, served
// from memory, nothing fetched from anywhere else at run time.
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { WardenError } from "../protocol/index.js";
import type { PageFiles } from "./webServer.js";

/** Where the build puts the page; the same from src/ (tsx) and from dist/ (tsc and bundles). */
const PAGE_DIR = new URL("../../dist/web/page/", import.meta.url);

/** The page is missing: warden was not built. */
export class PageNotBuiltError extends WardenError {
  static override readonly hint = "run `npm run build` in warden's folder";
  readonly code: string = "PAGE_NOT_BUILT";
  readonly exitClass = "operational";
}

export async function readPageFiles(): Promise<PageFiles> {
  try {
    const [html, js, css] = await Promise.all(
      ["index.html", "app.js", "app.css"].map((name) => readFile(new URL(name, PAGE_DIR))),
    );
    if (html === undefined || js === undefined || css === undefined) throw new Error("missing");
    return { html, js, css };
  } catch (error) {
    throw new PageNotBuiltError(`the dashboard's page is not in ${fileURLToPath(PAGE_DIR)}`, {
      cause: error,
    });
  }
}

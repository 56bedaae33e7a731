// What the dashboard's browser tests share: Debian's chromium launched headless through
// playwright-core, the skip reason when it is missing, and a wait on the page's state.
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type Browser } from "playwright-core";
import { skipWhen } from "../support/skipWhen.js";

export const CHROMIUM = "/usr/bin/chromium";

/** Why the browser tests cannot run here, or false when they can. */
export const NO_BROWSER = skipWhen(
  existsSync(CHROMIUM) ? false : "chromium is not installed: apt-get install chromium",
);

/** Where screenshots go: WARDEN_SCREENSHOTS when set (docs/ takes them from there), else tmp. */
export const SHOTS = process.env.WARDEN_SCREENSHOTS ?? join(tmpdir(), "warden-dashboard-shots");

/** A phone's screen in CSS pixels (an iPhone 12 to 15), for the flows a phone must manage. */
export const PHONE_VIEWPORT = { width: 390, height: 844 } as const;

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--no-first-run",
    ],
  });
}

/** Resolves once `check` holds; fails after `timeoutMs`. */
export async function waitUntil(check: () => Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("the page never got there");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

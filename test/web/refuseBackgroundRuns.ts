// The background runner for a test server whose test runs no task: a rerun asked of it fails
// the request loudly instead of leaving a task nobody runs.
export function refuseBackgroundRuns(id: string): Promise<void> {
  return Promise.reject(new Error(`this test runs no task in the background (asked for ${id})`));
}
